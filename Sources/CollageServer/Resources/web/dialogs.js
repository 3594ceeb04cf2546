// The export dialog: the renderer's own pixel size for the options, progress while it renders,
// and three ways out: Download, Copy image (the clipboard) and Share… (the system's share sheet),
// each shown only where the browser can do it.
import { api, setStatus } from './api.js';
import { isSeeThrough } from './background.js';
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

/** The export dialog: sizes, formats and the download, from the store's collage. */
export class Dialogs {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
    /** Counts Preview's requests: only the newest may play. */
    this.previewTicket = 0;
    /** The animation playing over the canvas, when one is. */
    this.canvasPreview = null;
  }

  openExport() {
    this.stopCanvasPreview();
    // An export is of the saved collage, so a layout being tried is put away first, and the
    // dialog says so (with the way to keep it).
    const tried = this.store.previewing?.template ?? null;
    this.editor.premium.endPreview();
    const form = $('export-form');
    $('export-trial').hidden = !tried;
    if (tried) {
      $('export-trial').textContent = `You were trying ${tried.name}: this exports your saved layout. `
        + `Unlock Collage Premium to keep ${tried.name}.`;
    }
    this.hideExportError();
    // The pixel size shown is the renderer's own answer for these options (or its reason for
    // refusing them); the newest answer wins when several are in flight.
    let asked = 0;
    let prepared = null;
    /** A video format chosen: its own settings, the pixel size from the canvas's shape. */
    const videoFormat = () => (form.format.value.startsWith('video-') ? form.format.value.slice(6) : null);
    const videoParams = () => {
      const format = videoFormat();
      const params = { format, motion: form.motion.value, duration: form.duration.value };
      if (format !== 'gif') params.size = form.videoSize.value;
      return params;
    };
    const showVideo = () => {
      const format = videoFormat();
      for (const id of ['motion-field', 'duration-field', 'video-size-field', 'video-preview', 'video-preview-button']) {
        $(id).hidden = !format;
      }
      $('video-size-field').hidden = !format || format === 'gif';
      for (const id of ['size-kind-field', 'scale-field', 'size-field', 'paper-field', 'dpi-field', 'print-field', 'print-help',
        'export-fit', 'export-quality', 'export-alpha']) {
        if (format) $(id).hidden = true;
      }
      $('size-kind-field').hidden = !!format;
      $('export-copy').hidden = !!format || !canCopyImages();
      if (!format) return false;
      form.durationValue.value = `${form.duration.value} s`;
      const { width, height } = this.store.collage.canvas;
      const side = format === 'gif' ? 480 : Number(form.videoSize.value);
      const scale = side / Math.max(width, height);
      const even = (value) => (format === 'mp4' || format === 'webm' ? value & ~1 : value);
      const fps = format === 'gif' ? 15 : 30;
      $('export-pixels').textContent = `${even(Math.round(width * scale))} × ${even(Math.round(height * scale))} px, `
        + `${form.duration.value} s at ${fps} frames a second`;
      this.videoFrames = Number(form.duration.value) * fps;
      this.videoIsLarge = side > 2000;
      prepared = null;
      this.hideExportError();
      return true;
    };
    // Preview plays the renderer's own frames on the canvas itself, at about the canvas's size
    // on screen, with the dialog put aside until the person goes back to it.
    const preview = async () => {
      // A preview asked for before the dialog was opened again belongs to older settings.
      const ticket = ++this.previewTicket;
      $('video-preview-text').textContent = 'Drawing a preview…';
      $('video-preview-button').disabled = true;
      try {
        const canvas = $('canvas');
        const onScreen = Math.max(canvas.clientWidth, canvas.clientHeight) * (window.devicePixelRatio || 1);
        const size = Math.max(240, Math.min(720, Math.round(onScreen)));
        const response = await api.downloadVideo(this.store.id, {
          ...videoParams(), format: 'webp', size, fps: 15, quality: 60,
        });
        if (!response.ok) {
          const body = await response.json().catch(() => null);
          throw new Error(body?.error?.plain ?? body?.error?.message ?? `the server answered ${response.status}`);
        }
        const blob = await response.blob();
        if (ticket !== this.previewTicket || !$('export-dialog').open) return;
        this.playOnCanvas(URL.createObjectURL(blob));
      } catch (error) {
        if (ticket === this.previewTicket) $('video-preview-text').textContent = `No preview: ${error.message}`;
      } finally {
        $('video-preview-button').disabled = false;
      }
    };
    $('video-preview-button').onclick = preview;
    const clearPreview = () => {
      this.previewTicket++;
      $('video-preview-text').textContent = 'Preview plays the animation on the canvas, as it will play.';
    };
    clearPreview();
    const update = async () => {
      clearPreview();
      // A still's size still being asked for must not write over the animation's settings.
      asked++;
      if (showVideo()) return;
      const kind = form.sizeKind.value;
      const custom = kind === 'print' && form.paper.value === 'custom';
      $('scale-field').hidden = kind !== 'scale';
      $('size-field').hidden = kind !== 'size';
      $('paper-field').hidden = kind !== 'print';
      $('dpi-field').hidden = kind !== 'print' || custom;
      $('print-field').hidden = !custom;
      $('print-help').hidden = !custom;
      prepared = null;
      $('export-share').textContent = 'Share…';
      this.hideExportError();
      const ticket = ++asked;
      let text;
      let fit = null;
      let size = null;
      try {
        size = await api.exportSize(this.store.id, sizeParams());
        text = `${size.width} × ${size.height} px${size.dpi ? ` at ${size.dpi} DPI` : ''}`;
        fit = size.fit ?? null;
      } catch (error) {
        text = error.message;
      }
      if (ticket !== asked) return;
      $('export-pixels').textContent = text;
      $('export-fit').hidden = !fit;
      // The server's note starts in lower case, as the command line prints it after "note:".
      if (fit) $('export-fit').textContent = fit.charAt(0).toUpperCase() + fit.slice(1) + '.';
      if (size) {
        // The canvas marks photos too small for the size chosen last.
        this.exportSizing = { scale: size.width / this.store.collage.canvas.width, dpi: size.dpi ?? null };
        this.editor.canvas.render();
      }
      const quality = size ? this.resolutionNote(size) : null;
      $('export-quality').hidden = !quality;
      if (quality) $('export-quality').textContent = quality;
      // Said before the download rather than found in it: a JPEG flattens a see-through canvas.
      $('export-alpha').hidden = !(form.format.value === 'jpeg' && isSeeThrough(this.store.collage.style.background));
    };
    /** The size options: a named paper is turned to the collage's own orientation. */
    const sizeParams = () => {
      const kind = form.sizeKind.value;
      if (kind !== 'print') return { [kind]: form[kind].value };
      if (form.paper.value === 'custom') return { print: form.print.value };
      const preset = this.store.app.presets.find((candidate) => candidate.id === form.paper.value);
      if (!preset?.inches) return { print: `${form.paper.value}@${form.dpi.value}` };
      const { width, height } = preset.inches;
      const landscape = this.store.collage.canvas.width > this.store.collage.canvas.height;
      const [w, h] = landscape === width > height ? [width, height] : [height, width];
      const inches = (value) => String(Math.round(value * 1000) / 1000);
      return { print: `${inches(w)}x${inches(h)}in@${form.dpi.value}` };
    };
    const options = (format = form.format.value) => (videoFormat() && format === form.format.value
      ? { video: true, ...videoParams() } : { format, ...sizeParams() });
    $('export-copy').hidden = !canCopyImages();
    $('export-share').hidden = !canShareImages();
    form.oninput = update;
    update();
    const download = async () => {
      const file = await this.renderExport(options(), download);
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
    form.onsubmit = (event) => {
      if (event.submitter?.value !== 'download') return;
      event.preventDefault();
      download();
    };
    const copy = async () => {
      // The clipboard takes the image as a promise, so the click still counts as the person's
      // own while the renderer works. Clipboards hold PNG, whatever format is chosen.
      let renderFailed = false;
      const png = this.renderExport(options('png'), copy).then((file) => {
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
        if (!renderFailed) this.showExportError(`The image could not be put on the clipboard: ${error.message}`, copy);
      }
    };
    $('export-copy').onclick = copy;
    const share = async () => {
      const button = $('export-share');
      // Rendering can outlast the click's permission to open the share sheet: then the file
      // waits, and the next press shares it at once.
      if (!prepared) {
        prepared = await this.renderExport(options(), share);
        if (!prepared) return;
        // A browser that shares images may still not take every format (HEIC, AVIF).
        if (!navigator.canShare({ files: [prepared] })) {
          this.showExportError(`This browser cannot share ${form.format.value.toUpperCase()} files: choose JPEG or PNG to share.`, share);
          prepared = null;
          return;
        }
      }
      try {
        await navigator.share({ files: [prepared], title: this.store.collage.title });
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
        this.showExportError(`Sharing failed: ${error.message}`, share);
      }
    };
    $('export-share').onclick = share;
    $('export-dialog').showModal();
  }

  /**
   * The animation (an object URL of its WebP) looping over the canvas, exactly where the collage
   * is, with a bar to go back to the export or end the preview (Escape, or a touch on it, ends it).
   * While it plays the collage under it cannot be edited: the canvas, the panels and the top
   * tools are inert and the editor's keys are held back; a resize of the stage ends it, since the
   * canvas moves.
   */
  playOnCanvas(url) {
    this.stopCanvasPreview();
    const image = document.createElement('img');
    image.className = 'animation-preview';
    image.alt = 'The animation, as the export will play it';
    image.src = url;
    const stop = (event) => {
      event.preventDefault();
      event.stopPropagation();
      this.stopCanvasPreview();
    };
    const keys = (event) => {
      // Another dialog (opened from the keyboard) keeps its own keys.
      if (event.target instanceof Element && event.target.closest('dialog')) return;
      if (event.key === 'Escape') {
        stop(event);
      } else if (!(event.target instanceof Element && event.target.closest('#animation-bar'))) {
        // Tab still moves focus; the editor's shortcuts (undo, delete, nudge…) do not reach it.
        event.stopPropagation();
      }
    };
    image.addEventListener('pointerdown', stop);
    document.addEventListener('keydown', keys, true);
    // Beside the canvas, not in it (the canvas's children are redrawn), on its exact box.
    const box = $('canvas').getBoundingClientRect();
    const stageBox = $('stage').getBoundingClientRect();
    Object.assign(image.style, {
      left: `${box.left - stageBox.left}px`, top: `${box.top - stageBox.top}px`,
      width: `${box.width}px`, height: `${box.height}px`,
    });
    const stage = $('stage');
    stage.append(image);
    stage.classList.add('playing-animation');
    const held = [$('canvas'), $('panel'), document.querySelector('#editor-view .editor-top')]
      .filter((element) => element && !element.inert);
    for (const element of held) element.inert = true;
    let sized = false;
    const resized = new ResizeObserver(() => {
      // The first call is the observer's own start; later ones mean the canvas has moved.
      if (sized) this.stopCanvasPreview();
      sized = true;
    });
    resized.observe(stage);
    $('animation-bar').hidden = false;
    $('export-dialog').close();
    $('animation-back').onclick = () => {
      this.stopCanvasPreview();
      this.openExport();
    };
    $('animation-done').onclick = () => this.stopCanvasPreview();
    $('animation-done').focus();
    this.canvasPreview = { image, url, keys, held, resized };
  }

  /** Ends the animation's preview on the canvas, if one is playing, and gives focus back to Export. */
  stopCanvasPreview() {
    if (!this.canvasPreview) return;
    const { image, url, keys, held, resized } = this.canvasPreview;
    this.canvasPreview = null;
    document.removeEventListener('keydown', keys, true);
    resized.disconnect();
    image.remove();
    URL.revokeObjectURL(url);
    for (const element of held) element.inert = false;
    $('stage').classList.remove('playing-animation');
    $('animation-bar').hidden = true;
    $('export-button')?.focus();
  }

  /** A failed export, said in the dialog where the person is looking, with Retry. */
  showExportError(message, retry) {
    $('export-error-text').textContent = message;
    $('export-error').hidden = false;
    $('export-retry').onclick = () => { this.hideExportError(); retry(); };
  }

  hideExportError() {
    $('export-error').hidden = true;
    $('export-retry').onclick = null;
  }

  /**
   * A line for the dialog when a photo would be enlarged past what looks sharp at this size:
   * below 150 dpi on a print (as print services warn), or more than twice its own pixels on
   * screen; null when every photo is sharp enough.
   */
  resolutionNote(size) {
    const soft = this.editor.canvas.softPhotos(size.width / this.store.collage.canvas.width, size.dpi ?? null);
    if (!soft.length) return null;
    const worst = soft.reduce((a, b) => (a.quality < b.quality ? a : b));
    const count = soft.length === 1 ? 'One photo is' : `${soft.length} photos are`;
    return size.dpi
      ? `${count} small for this print: printed at ${Math.round(worst.quality)} dpi at the lowest (150 or more looks sharp).`
      : `${count} small for this size: enlarged up to ${Math.round(10 / worst.quality) / 10}× (they may look soft).`;
  }


  /**
   * Renders the collage with `params`, showing progress in the dialog, and returns it as a
   * File named as the server names it; null (with the reason said) when it fails.
   */
  async renderExport(params, retry) {
    const buttons = ['export-download', 'export-copy', 'export-share'].map((id) => $(id));
    setStatus('Exporting…');
    for (const button of buttons) button.disabled = true;
    $('export-progress').hidden = false;
    $('export-progress-text').textContent = `Rendering ${$('export-pixels').textContent.split(' px')[0]} px…`;
    this.hideExportError();
    try {
      // Crops found since the canvas last asked are taken first: the export is what it shows.
      if (Number($('canvas').dataset.focusPending ?? 0) > 0) await this.store.catchUpOnFocus();
      const { video, ...query } = params;
      if (video) {
        $('export-progress-text').textContent = `Drawing ${this.videoFrames} frames and encoding them`
          + (this.videoIsLarge ? ' (a 4K video takes a few minutes)…' : '…');
      }
      // Closing the dialog (Cancel, Escape) stops the export: the server stops drawing when
      // the request goes away.
      const controller = new AbortController();
      const stop = () => controller.abort();
      $('export-dialog').addEventListener('close', stop, { once: true });
      let response;
      try {
        response = video
          ? await api.downloadVideo(this.store.id, query, controller.signal)
          : await api.download(this.store.id, query, controller.signal);
      } finally {
        $('export-dialog').removeEventListener('close', stop);
      }
      if (!response.ok) {
        // The server's plain words for a person (no paths, no library names), when it has them.
        const body = await response.json().catch(() => null);
        throw new Error(body?.error?.plain ?? body?.error?.message ?? `the server answered ${response.status}`);
      }
      const blob = await response.blob();
      // The title as it is (filename*, UTF-8), else the plain ASCII name.
      const disposition = response.headers.get('Content-Disposition') || '';
      const encoded = disposition.match(/filename\*=UTF-8''([^;]+)/i)?.[1];
      const name = encoded ? decodeURIComponent(encoded) : disposition.match(/filename="([^"]+)"/)?.[1] ?? 'collage';
      return new File([blob], name, { type: blob.type });
    } catch (error) {
      setStatus('All changes saved');
      if (error.name === 'AbortError') return null;
      const reason = error instanceof TypeError ? 'The editor\'s server could not be reached. Is it still running?' : error.message;
      this.showExportError(`The export failed. ${reason}`, retry ?? (() => {}));
      return null;
    } finally {
      for (const button of buttons) button.disabled = false;
      $('export-progress').hidden = true;
    }
  }
}
