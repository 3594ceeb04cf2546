// Premium layouts in the editor: a locked layout opens the Unlock sheet, and "Try" shows it on
// the person's own collage, resolved by the server and saved nowhere, until they unlock or go back.
import { api, setStatus } from './api.js';
import { offerUnlock, premium } from './licence.js';
import { $, toast } from './ui.js';

/** Premium layouts: the Unlock sheet, and a layout tried on the collage without saving it. */
export class Premium {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
  }

  setUpPremium() {
    this.store.listen($('preview-end'), 'click', () => { this.endPreview(); $('tab-layouts').focus(); });
    this.store.listen($('preview-unlock'), 'click', () => this.offerPremium(this.store.previewing.template));
    this.store.listen($('preview-smart'), 'click', () => { this.endPreview(); this.editor.panels.arrange(); });
    // A key added in another tab or window: the locks go at once.
    this.store.listen(window, 'licencechange', () => { if (!this.store.closed) this.editor.panels.updatePanel(); });
  }

  /** The collage as saved: while a layout is being tried, the document under the preview. */
  savedCollage() { return (this.store.previewing?.saved ?? this.store.doc).collage; }

  /** The Unlock sheet for `template`; unlocking applies it, "Try" previews it. */
  async offerPremium(template) {
    const choice = await offerUnlock({
      template, templates: this.store.app.templates, canvas: this.savedCollage().canvas,
      photos: this.editor.panels.photosInOrder(), canTry: true,
    });
    if (this.store.closed) return;
    if (choice === 'try') {
      await this.tryLayout(template);
    } else if (choice === 'unlocked') {
      this.endPreview();
      toast(`Collage Premium unlocked${premium.licence ? ` for ${premium.licence.licensee}` : ''}: every layout is yours`, 'success');
      await this.editor.panels.chooseLayout(template);
    } else if (this.store.previewing) {
      $('preview-unlock').focus();
    }
  }

  /** Shows the collage as `template` would lay it out, without saving anything. */
  async tryLayout(template) {
    // Changes on their way are saved first, so the preview starts from what is stored.
    await this.store.saving;
    const saved = this.store.previewing?.saved ?? this.store.doc;
    let preview;
    try {
      preview = await api.preview(this.store.id, [{ op: 'applyTemplate', template: template.id }]);
    } catch (error) {
      toast(`${template.name} cannot be shown: ${error.message}`, 'error');
      return;
    }
    // The collage may have changed (another save) while the preview was drawn: keep the newest.
    if (this.store.closed || (this.store.previewing?.saved ?? this.store.doc) !== saved) return;
    this.editor.toolbar.setCropMode(false);
    // A layout is shown at its best: photos it has no frame for are set aside (not piled in the
    // middle), and the banner says how many, with the smart layout that fits them all.
    const isExtra = (item) => item.content.type === 'photo' && item.slot === undefined;
    const extras = preview.collage.items.filter(isExtra).length;
    const shown = { ...preview.collage, items: preview.collage.items.filter((item) => !isExtra(item)) };
    $('preview-text').textContent = extras
      ? `Trying ${template.name}: ${extras} of your photos do not fit its ${template.slots} frames`
      : `Trying ${template.name}`;
    $('preview-smart').hidden = !extras;
    // The history and version are the saved collage's: nothing here is a step to undo.
    this.store.startPreview({ ...preview, collage: shown, history: saved.history, version: saved.version }, template, saved);
    setStatus(`Previewing ${template.name}`);
    $('preview-unlock').focus();
  }

  /** Back to the saved collage (before any change is sent, so nothing is built on the preview). */
  endPreview() { this.store.endPreview(); }

  /** The banner and the canvas's state follow the store: a layout tried, or the collage itself. */
  showPreviewState() {
    const trying = !!this.store.previewing;
    $('canvas').classList.toggle('previewing', trying);
    // Nothing on a tried layout can be focused, dragged or dropped on: it is not the collage.
    $('canvas').inert = trying;
    $('preview-banner').hidden = !trying;
    if (!trying) setStatus('All changes saved');
  }
}
