// The export dialog: the renderer's own pixel size for the options, progress while it renders,
// and three ways out: Download, Copy image (the clipboard) and Share… (the system's share sheet),
// each shown only where the browser can do it.
import { api, setStatus } from './api.js';
import { $, toast } from './ui.js';

/** Whether this browser can put a PNG on the clipboard (127.0.0.1 counts as a secure origin). */
function canCopyImages() {
  if (!window.isSecureContext || !navigator.clipboard?.write || !window.ClipboardItem) return false;
  return typeof ClipboardItem.supports === 'function' ? ClipboardItem.supports('image/png') : true;
}

/** Whether this browser can hand image files to the system's share sheet (Web Share, level 2). */
function canShareImages() {
  if (typeof navigator.canShare !== 'function' || typeof navigator.share !== 'function') return false;
  try {
    return navigator.canShare({ files: [new File([new Uint8Array(8)], 'collage.png', { type: 'image/png' })] });
  } catch {
    return false;
  }
}

/** Methods of the editor (mixed into `Editor`); `this` is the editor. */
export class Dialogs {
  openExport() {
    // An export is of the saved collage, so a layout being tried is put away first.
    this.endPreview();
    const form = $('export-form');
    // The pixel size shown is the renderer's own answer for these options (or its reason for
    // refusing them); the newest answer wins when several are in flight.
    let asked = 0;
    let prepared = null;
    const update = async () => {
      const kind = form.sizeKind.value;
      $('scale-field').hidden = kind !== 'scale';
      $('size-field').hidden = kind !== 'size';
      $('print-field').hidden = kind !== 'print';
      prepared = null;
      $('export-share').textContent = 'Share…';
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
    const options = (format = form.format.value) => {
      const params = { format };
      params[form.sizeKind.value] = form[form.sizeKind.value].value;
      return params;
    };
    $('export-copy').hidden = !canCopyImages();
    $('export-share').hidden = !canShareImages();
    form.oninput = update;
    update();
    form.onsubmit = async (event) => {
      if (event.submitter?.value !== 'download') return;
      event.preventDefault();
      const file = await this.renderExport(options());
      if (!file) return;
      const link = document.createElement('a');
      link.href = URL.createObjectURL(file);
      link.download = file.name;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
      setStatus('Exported');
      toast(`Exported ${file.name}`, 'success');
      $('export-dialog').close();
    };
    $('export-copy').onclick = async () => {
      // The clipboard takes the image as a promise, so the click still counts as the person's
      // own while the renderer works. Clipboards hold PNG, whatever format is chosen.
      let renderFailed = false;
      const png = this.renderExport(options('png')).then((file) => {
        if (!file) { renderFailed = true; throw new Error('the export failed'); }
        return file;
      });
      try {
        await navigator.clipboard.write([new ClipboardItem({ 'image/png': png })]);
        setStatus('Copied');
        toast('Copied the collage as a PNG: paste it anywhere', 'success');
        $('export-dialog').close();
      } catch (error) {
        // A failed render has said why already.
        if (!renderFailed) toast(`The image could not be put on the clipboard: ${error.message}`, 'error');
      }
    };
    $('export-share').onclick = async () => {
      const button = $('export-share');
      // Rendering can outlast the click's permission to open the share sheet: then the file
      // waits, and the next press shares it at once.
      if (!prepared) {
        prepared = await this.renderExport(options());
        if (!prepared) return;
        // A browser that shares images may still not take every format (HEIC, AVIF).
        if (!navigator.canShare({ files: [prepared] })) {
          toast(`This browser cannot share ${form.format.value.toUpperCase()} files: choose JPEG or PNG to share`, 'error');
          prepared = null;
          return;
        }
      }
      try {
        await navigator.share({ files: [prepared], title: this.collage.title });
        setStatus('Shared');
        prepared = null;
        button.textContent = 'Share…';
        $('export-dialog').close();
      } catch (error) {
        if (error.name === 'AbortError') return;
        if (error.name === 'NotAllowedError' && navigator.userActivation && !navigator.userActivation.isActive) {
          button.textContent = 'Share now';
          button.focus();
          return;
        }
        toast(`Sharing failed: ${error.message}`, 'error');
      }
    };
    $('export-dialog').showModal();
  }

  /**
   * Renders the collage with `params`, showing progress in the dialog, and returns it as a
   * File named as the server names it; null (with the reason said) when it fails.
   */
  async renderExport(params) {
    const buttons = ['export-download', 'export-copy', 'export-share'].map((id) => $(id));
    setStatus('Exporting…');
    for (const button of buttons) button.disabled = true;
    $('export-progress').hidden = false;
    $('export-progress-text').textContent = `Rendering ${$('export-pixels').textContent.split(' px')[0]} px…`;
    try {
      const response = await api.download(this.id, params);
      if (!response.ok) throw new Error((await response.json()).error.message);
      const blob = await response.blob();
      // The title as it is (filename*, UTF-8), else the plain ASCII name.
      const disposition = response.headers.get('Content-Disposition') || '';
      const encoded = disposition.match(/filename\*=UTF-8''([^;]+)/i)?.[1];
      const name = encoded ? decodeURIComponent(encoded) : disposition.match(/filename="([^"]+)"/)?.[1] ?? 'collage';
      return new File([blob], name, { type: blob.type });
    } catch (error) {
      setStatus(`Export failed: ${error.message}`, 'error');
      toast(`Export failed: ${error.message}`, 'error');
      return null;
    } finally {
      for (const button of buttons) button.disabled = false;
      $('export-progress').hidden = true;
    }
  }
}
