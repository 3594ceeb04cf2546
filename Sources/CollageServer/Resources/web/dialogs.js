// The layout sheet and the export dialog.
import { api, setStatus } from './api.js';
import { $, templatePreview, toast } from './ui.js';

/** Methods of the editor (mixed into `Editor`); `this` is the editor. */
export class Dialogs {
  openLayouts() {
    const grid = $('layout-grid');
    grid.replaceChildren(...this.app.templates.map((template) => {
      const button = document.createElement('button');
      button.className = 'layout-option';
      button.setAttribute('aria-pressed', String(template.id === this.collage.template));
      button.setAttribute('aria-label', `${template.name}, ${template.slots} photos${template.premium ? ', premium' : ''}`);
      const name = document.createElement('span');
      name.textContent = template.name;
      button.append(templatePreview(template), name);
      if (template.premium) {
        const badge = document.createElement('span');
        badge.className = 'premium';
        badge.textContent = '★ Premium';
        button.append(badge);
      }
      button.addEventListener('click', async () => {
        $('layout-dialog').close();
        await this.commit([{ op: 'applyTemplate', template: template.id }]);
        const loose = this.collage.items.filter((item) => item.content.type === 'photo' && item.slot === undefined);
        if (this.collage.template === template.id && loose.length) {
          setStatus(`${template.name} has ${template.slots} slots: ${loose.length} photo${loose.length === 1 ? ' is' : 's are'} `
            + 'stacked in front, at the centre');
        }
      });
      return button;
    }));
    $('layout-dialog').showModal();
  }

  openExport() {
    const form = $('export-form');
    // The pixel size shown is the renderer's own answer for these options (or its reason for
    // refusing them); the newest answer wins when several are in flight.
    let asked = 0;
    const update = async () => {
      const kind = form.sizeKind.value;
      $('scale-field').hidden = kind !== 'scale';
      $('size-field').hidden = kind !== 'size';
      $('print-field').hidden = kind !== 'print';
      const ticket = ++asked;
      let text;
      try {
        const size = await api.exportSize(this.id, { [kind]: form[kind].value });
        text = `${size.width} × ${size.height} px${size.dpi ? ` at ${size.dpi} DPI` : ''}`;
      } catch (error) {
        text = error.message;
      }
      if (ticket === asked) $('export-pixels').textContent = text;
    };
    form.oninput = update;
    update();
    form.onsubmit = async (event) => {
      if (event.submitter?.value !== 'download') return;
      const params = { format: form.format.value };
      params[form.sizeKind.value] = form[form.sizeKind.value].value;
      setStatus('Exporting…');
      try {
        const response = await api.download(this.id, params);
        if (!response.ok) throw new Error((await response.json()).error.message);
        const blob = await response.blob();
        const link = document.createElement('a');
        link.href = URL.createObjectURL(blob);
        link.download = (response.headers.get('Content-Disposition') || '').match(/filename="([^"]+)"/)?.[1] ?? 'collage';
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 10000);
        setStatus('Exported');
        toast(`Exported ${link.download}`, 'success');
      } catch (error) {
        setStatus(`Export failed: ${error.message}`, 'error');
        toast(`Export failed: ${error.message}`, 'error');
      }
    };
    $('export-dialog').showModal();
  }
}
