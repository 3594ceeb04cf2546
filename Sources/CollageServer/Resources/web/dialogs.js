// The layout sheet and the export dialog.
import { api, setStatus } from './api.js';
import { $, templatePreview } from './ui.js';

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
    const update = () => {
      const kind = form.sizeKind.value;
      $('scale-field').hidden = kind !== 'scale';
      $('size-field').hidden = kind !== 'size';
      $('print-field').hidden = kind !== 'print';
      const { width, height } = this.collage.canvas;
      let pixels = '';
      if (kind === 'scale') pixels = `${Math.round(width * form.scale.value)} × ${Math.round(height * form.scale.value)} px`;
      else if (kind === 'size') {
        const k = form.size.value / Math.max(width, height);
        pixels = `${Math.round(width * k)} × ${Math.round(height * k)} px`;
      } else {
        const match = form.print.value.match(/^([\d.]+)x([\d.]+)(in|cm|mm)(?:@(\d+))?$/i);
        if (match) {
          const perInch = { in: 1, cm: 2.54, mm: 25.4 }[match[3].toLowerCase()];
          const dpi = Number(match[4] ?? 300);
          const k = Math.min((match[1] / perInch) * dpi / width, (match[2] / perInch) * dpi / height);
          pixels = `${Math.round(width * k)} × ${Math.round(height * k)} px at ${dpi} DPI`;
        } else pixels = 'Print size looks like 6x4in@300';
      }
      $('export-pixels').textContent = pixels;
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
      } catch (error) {
        setStatus(`Export failed: ${error.message}`, 'error');
      }
    };
    $('export-dialog').showModal();
  }
}
