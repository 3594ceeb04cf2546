// Premium layouts in the editor: a locked layout opens the Unlock sheet, and "Try" shows it on
// the person's own collage, resolved by the server and saved nowhere, until they unlock or go back.
import { api, setStatus } from './api.js';
import { offerUnlock, premium } from './licence.js';
import { $, toast } from './ui.js';

/** Methods of the editor (mixed into `Editor`); `this` is the editor. */
export class Premium {
  setUpPremium() {
    this.listen($('preview-end'), 'click', () => { this.endPreview(); $('tab-layouts').focus(); });
    this.listen($('preview-unlock'), 'click', () => this.offerPremium(this.previewing.template));
    this.listen($('preview-smart'), 'click', () => { this.endPreview(); this.arrange(); });
    // A key added in another tab or window: the locks go at once.
    this.listen(window, 'licencechange', () => { if (!this.closed) this.updatePanel(); });
  }

  /** The collage as saved: while a layout is being tried, the document under the preview. */
  savedCollage() { return (this.previewing?.saved ?? this.doc).collage; }

  /** The Unlock sheet for `template`; unlocking applies it, "Try" previews it. */
  async offerPremium(template) {
    const choice = await offerUnlock({
      template, templates: this.app.templates, canvas: this.savedCollage().canvas,
      photos: this.photosInOrder(), canTry: true,
    });
    if (this.closed) return;
    if (choice === 'try') {
      await this.tryLayout(template);
    } else if (choice === 'unlocked') {
      this.endPreview();
      toast(`Collage Premium unlocked${premium.licence ? ` for ${premium.licence.licensee}` : ''}: every layout is yours`, 'success');
      await this.chooseLayout(template);
    } else if (this.previewing) {
      $('preview-unlock').focus();
    }
  }

  /** Shows the collage as `template` would lay it out, without saving anything. */
  async tryLayout(template) {
    // Changes on their way are saved first, so the preview starts from what is stored.
    await this.saving;
    const saved = this.previewing?.saved ?? this.doc;
    let preview;
    try {
      preview = await api.preview(this.id, [{ op: 'applyTemplate', template: template.id }]);
    } catch (error) {
      toast(`${template.name} cannot be shown: ${error.message}`, 'error');
      return;
    }
    // The collage may have changed (another save) while the preview was drawn: keep the newest.
    if (this.closed || (this.previewing?.saved ?? this.doc) !== saved) return;
    this.selected = null;
    this.setCropMode(false);
    this.previewing = { template, saved };
    // A layout is shown at its best: photos it has no frame for are set aside (not piled in the
    // middle), and the banner says how many, with the smart layout that fits them all.
    const isExtra = (item) => item.content.type === 'photo' && item.slot === undefined;
    const extras = preview.collage.items.filter(isExtra).length;
    const shown = { ...preview.collage, items: preview.collage.items.filter((item) => !isExtra(item)) };
    // The history and version are the saved collage's: nothing here is a step to undo.
    this.doc = { ...preview, collage: shown, history: saved.history, version: saved.version };
    $('canvas').classList.add('previewing');
    // Nothing on a tried layout can be focused, dragged or dropped on: it is not the collage.
    $('canvas').inert = true;
    $('preview-text').textContent = extras
      ? `Trying ${template.name}: ${extras} of your photos do not fit its ${template.slots} frames`
      : `Trying ${template.name}`;
    $('preview-smart').hidden = !extras;
    $('preview-banner').hidden = false;
    setStatus(`Previewing ${template.name}`);
    this.render();
    $('preview-unlock').focus();
  }

  /** Back to the saved collage (before any change is sent, so nothing is built on the preview). */
  endPreview() {
    if (!this.previewing) return;
    this.doc = this.previewing.saved;
    this.previewing = null;
    if (this.closed) return;
    $('canvas').classList.remove('previewing');
    $('canvas').inert = false;
    $('preview-banner').hidden = true;
    setStatus('All changes saved');
    this.render();
  }
}
