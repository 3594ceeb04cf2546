// The export dialog: the renderer's own pixel size for the options, and progress while it renders.
import { api, setStatus } from './api.js';
import { $, toast } from './ui.js';

/** Methods of the editor (mixed into `Editor`); `this` is the editor. */
export class Dialogs {
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
      // The dialog stays open with a progress bar while the renderer works: a print-size export
      // takes seconds, and a closed dialog with nothing moving reads as nothing happening.
      event.preventDefault();
      const params = { format: form.format.value };
      params[form.sizeKind.value] = form[form.sizeKind.value].value;
      setStatus('Exporting…');
      const download = $('export-download');
      download.disabled = true;
      $('export-progress').hidden = false;
      $('export-progress-text').textContent = `Rendering ${$('export-pixels').textContent.split(' px')[0]} px…`;
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
        $('export-dialog').close();
      } catch (error) {
        setStatus(`Export failed: ${error.message}`, 'error');
        toast(`Export failed: ${error.message}`, 'error');
      } finally {
        download.disabled = false;
        $('export-progress').hidden = true;
      }
    };
    $('export-dialog').showModal();
  }
}
