// Text items: added in a ready-made look from the Text tab, styled there, and typed in place.
// While typing, the words show in an overlay in the browser's own font engine; when typing
// pauses they are saved, and the renderer's pixels (the export's) take the overlay's place.
import { api, setStatus } from './api.js';
import { $, newID, toast } from './ui.js';

/** Ready-made looks; `size` is a fraction of the canvas's shorter side. */
const presets = [
  {
    name: 'Title', sample: 'Your title', size: 0.085,
    look: { font: 'Inter', weight: 800, color: '#1f1f1f', shadow: { color: '#ffffffcc', blur: 5, x: 0, y: 0 } },
  },
  {
    name: 'Label', sample: 'A label', size: 0.04,
    look: { font: 'Inter', weight: 600, color: '#ffffff', background: { color: '#1f1f1f', opacity: 0.8, cornerRadius: 500 } },
  },
  {
    name: 'Caption', sample: 'A caption', size: 0.045,
    look: { font: 'Lato', weight: 400, color: '#ffffff', shadow: { color: '#00000099', blur: 3, x: 0, y: 1.5 } },
  },
  {
    name: 'Handwritten', sample: 'With love', size: 0.075,
    look: { font: 'Dancing Script', weight: 700, color: '#1f1f1f', shadow: { color: '#ffffffcc', blur: 5, x: 0, y: 0 } },
  },
  {
    name: 'Poster', sample: 'SUMMER', size: 0.1,
    look: { font: 'Lobster Two', weight: 700, italic: true, color: '#ffd23f', outline: { color: '#1f1f1f', width: 3 } },
  },
  {
    name: 'Classic', sample: 'Once upon a time', size: 0.055,
    look: { font: 'EB Garamond', weight: 400, italic: true, color: '#1f1f1f', shadow: { color: '#ffffffcc', blur: 5, x: 0, y: 0 } },
  },
];

/** The curated fonts, as the server lists them (loaded once per page). */
let fontList = null;

/**
 * The collage as last saved, small (its thumbnail's pixels), for the lightness under a new text:
 * `{ key, width, height, data }`, `key` the collage's id and version. Fetched when the presets
 * come near the pointer or the keyboard, so a click finds it ready.
 */
let backdrop = null;
let backdropFetch = null;

async function fetchBackdrop(doc) {
  const key = `${doc.collage.id}@${doc.version}`;
  if (backdrop?.key === key || backdropFetch?.key === key) return;
  const fetching = { key };
  backdropFetch = fetching;
  try {
    const response = await fetch(`/api/collages/${encodeURIComponent(doc.collage.id)}/thumbnail`);
    if (!response.ok) return;
    const bitmap = await createImageBitmap(await response.blob());
    const k = Math.min(1, 128 / Math.max(bitmap.width, bitmap.height));
    const width = Math.max(1, Math.round(bitmap.width * k)), height = Math.max(1, Math.round(bitmap.height * k));
    const context = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true });
    context.drawImage(bitmap, 0, 0, width, height);
    backdrop = { key, id: doc.collage.id, width, height, data: context.getImageData(0, 0, width, height).data };
  } catch {
    // No picture to go by: a new text keeps its preset's colours.
  } finally {
    if (backdropFetch === fetching) backdropFetch = null;
  }
}

/** The mean lightness (0–1) under `frame` (canvas points) of the collage as last fetched, or null. */
function lightnessUnder(collage, frame) {
  if (!backdrop || backdrop.id !== collage.id) return null;
  const kx = backdrop.width / collage.canvas.width, ky = backdrop.height / collage.canvas.height;
  const left = Math.max(0, Math.floor(frame.x * kx)), top = Math.max(0, Math.floor(frame.y * ky));
  const right = Math.min(backdrop.width, Math.ceil((frame.x + frame.width) * kx));
  const bottom = Math.min(backdrop.height, Math.ceil((frame.y + frame.height) * ky));
  let total = 0, count = 0;
  for (let y = top; y < bottom; y++) {
    for (let x = left; x < right; x++) {
      const i = (y * backdrop.width + x) * 4;
      total += 0.299 * backdrop.data[i] + 0.587 * backdrop.data[i + 1] + 0.114 * backdrop.data[i + 2];
      count++;
    }
  }
  return count ? total / count / 255 : null;
}

/**
 * A preset's look for what lies under it: dark words with a light glow turn light with a dark
 * shadow over a dark picture (a Title over a black horse could not be read), and light words
 * turn dark over a light one (a Caption vanished on the white canvas). The Label's pill and the
 * Poster's outline read anywhere.
 */
function lookFor(look, lightness) {
  if (lightness === null || look.background || look.outline) return look;
  const dark = look.color === '#1f1f1f', light = look.color === '#ffffff';
  if (dark && lightness < 0.42) return { ...look, color: '#ffffff', shadow: { color: '#000000b3', blur: 5, x: 0, y: 1 } };
  if (light && lightness > 0.62) return { ...look, color: '#1f1f1f', shadow: { color: '#ffffffcc', blur: 5, x: 0, y: 0 } };
  return look;
}

/** How a text's look reads in CSS, for the overlay and the placeholder drawn before the pixels. */
export function textCSS(block, scale, fonts = fontList ?? []) {
  const fallback = fonts.find((font) => font.family === block.font)?.cssFallback ?? 'sans-serif';
  const css = {
    fontFamily: `"${block.font}", ${fallback}`, fontSize: `${block.size * scale}px`,
    fontWeight: String(block.weight ?? 400), fontStyle: block.italic ? 'italic' : 'normal',
    color: (block.color ?? '#1f1f1f').slice(0, 7), textAlign: block.align ?? 'center',
    lineHeight: String(1.2 * (block.lineSpacing ?? 1)), letterSpacing: `${block.letterSpacing ?? 0}em`,
    padding: `${(block.background?.padding ?? 0) * scale}px`,
  };
  if (block.background) {
    const { color, opacity, cornerRadius } = block.background;
    const [r, g, b] = channels(color);
    css.backgroundColor = `rgba(${r}, ${g}, ${b}, ${opacity})`;
    css.borderRadius = `${cornerRadius * scale}px`;
  }
  if (block.shadow) {
    const { color, blur, x, y } = block.shadow;
    css.textShadow = `${x * scale}px ${y * scale}px ${2 * blur * scale}px ${color}`;
  }
  if (block.outline) {
    // The renderer's outline lies outside the letters: a stroke twice as wide, painted under the fill.
    css.webkitTextStroke = `${2 * block.outline.width * scale}px ${block.outline.color.slice(0, 7)}`;
    css.paintOrder = 'stroke fill';
  }
  return css;
}

/** The red, green and blue of a `#rrggbb…` colour, 0–255 each. */
function channels(color) {
  return [1, 3, 5].map((index) => parseInt(color.slice(index, index + 2), 16));
}

/** White or near-black, whichever sets off words of `color` (#rrggbb…). */
function contrasting(color) {
  const [r, g, b] = channels(color);
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#1f1f1f' : '#ffffff';
}

/** The text block of a text item's content: its fields without the `type`. */
export function blockOf(content) {
  const { type, ...block } = content;
  return block;
}

/** Text items: the Text tab's looks, and typing in place. */
export class TextEditing {
  /** A view of the editor's store; `editor` names the other views it works with. */
  constructor(store, editor) {
    this.store = store;
    this.editor = editor;
  }

  async setUpText() {
    this.store.listen($('edit-text'), 'click', () => this.store.selected && this.startTextEditing(this.store.selected));
    this.store.listen($('canvas'), 'dblclick', (event) => {
      const element = event.target.closest('.item.text');
      if (element) this.startTextEditing(element.dataset.id);
    });
    const look = (id, read, event = 'change') => this.store.listen($(id), event, () => this.setTextLook(read()));
    look('text-font', () => ({ font: $('text-font').value }));
    look('text-weight', () => ({ weight: Number($('text-weight').value) }));
    look('text-italic', () => ({ italic: $('text-italic').checked }));
    look('text-size', () => ({ size: Number($('text-size').value) }));
    look('text-color', () => ({ color: $('text-color').value }));
    look('text-line', () => ({ lineSpacing: Number($('text-line').value) }));
    look('text-letter', () => ({ letterSpacing: Number($('text-letter').value) }));
    for (const align of ['left', 'center', 'right']) {
      this.store.listen($(`text-align-${align}`), 'click', () => this.setTextLook({ align }));
    }
    look('text-pill', () => ({ background: $('text-pill').checked ? this.pillFields() : null }));
    // A box turned on is in the colour that sets the words off: dark under light words, white under dark.
    this.store.listen($('text-pill'), 'input', () => {
      const item = this.store.selectedItem();
      if ($('text-pill').checked && item?.content.type === 'text') $('text-pill-color').value = contrasting(item.content.color);
    });
    // Each control changes its own field only: the others keep what the text has (a radius of
    // 500 stays 500 when the colour changes, though the slider stops at 100).
    const pillControls = [['text-pill-color', 'color', String], ['text-pill-opacity', 'opacity', Number],
      ['text-pill-radius', 'cornerRadius', Number], ['text-pill-padding', 'padding', Number]];
    for (const [id, field, read] of pillControls) {
      this.store.listen($(id), 'change', () => this.setTextLook((block) => ({
        background: { ...(block.background ?? this.pillFields()), [field]: read($(id).value) },
      })));
    }
    look('text-outline', () => ({ outline: $('text-outline').checked ? this.outlineFields() : null }));
    for (const [id, field, read] of [['text-outline-color', 'color', String], ['text-outline-width', 'width', Number]]) {
      this.store.listen($(id), 'change', () => this.setTextLook((block) => ({
        outline: { ...(block.outline ?? this.outlineFields()), [field]: read($(id).value) },
      })));
    }
    look('text-shadow', () => ({ shadow: $('text-shadow').checked ? { color: '#00000080', blur: 4, x: 0, y: 2 } : null }));
    for (const id of ['text-size', 'text-line', 'text-letter', 'text-pill-opacity', 'text-pill-radius', 'text-pill-padding',
      'text-outline-width', 'text-color', 'text-pill-color', 'text-outline-color']) {
      this.store.listen($(id), 'input', () => {
        this.showTextValues();
        this.previewTextLook(id);
      });
      // Let go where it started sends no change: the renderer's drawing comes back all the same.
      this.store.listen($(id), 'blur', () => this.editor.canvas.render());
    }
    try {
      fontList ??= (await api.fonts()).fonts;
    } catch (error) {
      toast(`The fonts could not be listed: ${error.message}`, 'error');
      fontList = [];
    }
    if (this.store.closed) return;
    $('text-font').replaceChildren(...fontList.map((font) => {
      const option = document.createElement('option');
      option.value = font.family;
      option.textContent = `${font.family} · ${font.kind}`;
      option.style.fontFamily = `"${font.family}", ${font.cssFallback}`;
      return option;
    }));
    this.drawTextPresets();
    this.updateTextPanel();
  }

  /** One button per ready-made look, each written in that look. */
  drawTextPresets() {
    // The picture the new text will lie on, fetched before the click that adds it.
    for (const event of ['pointerover', 'focusin', 'pointerdown']) {
      this.store.listen($('text-presets'), event, () => { if (this.store.doc) fetchBackdrop(this.store.doc); });
    }
    $('text-presets').replaceChildren(...presets.map((preset) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'text-preset';
      button.setAttribute('aria-label', `Add ${preset.name.toLowerCase()} text`);
      button.title = `Add ${preset.name.toLowerCase()} text`;
      const sample = document.createElement('span');
      sample.textContent = preset.name;
      const style = textCSS({ ...preset.look, size: 22 }, 1);
      delete style.padding;
      Object.assign(sample.style, style);
      if (preset.look.background) {
        Object.assign(sample.style, { background: preset.look.background.color, borderRadius: '999px', padding: '2px 10px', fontSize: '15px' });
      }
      // Light words are shown on a darker tile, so every sample can be read.
      if (preset.look.color === '#ffffff' && !preset.look.background) button.style.background = 'linear-gradient(135deg, #35506b, #7a5c3e)';
      if (preset.look.color === '#ffd23f') button.style.background = '#fff7dd';
      button.append(sample);
      button.addEventListener('click', () => this.addText(preset));
      return button;
    }));
  }

  /**
   * Adds a text in a ready-made look at the centre, and starts typing in it at once: keys pressed
   * while the new text is being saved go into it, not to the button that made it.
   */
  async addText(preset) {
    this.editor.premium.endPreview();
    const canvas = this.store.collage.canvas;
    const size = Math.max(8, Math.round(Math.min(canvas.width, canvas.height) * preset.size));
    let look = structuredClone(preset.look);
    if (look.background) look.background.padding = Math.round(size * 0.35);
    if (look.outline) look.outline.width = Math.max(1, Math.round(size * 0.03 * 2) / 2);
    const id = newID();
    // Where the server will put it (CollageCore's default frame for a text), until it says.
    const width = canvas.width * 0.7, height = size * 1.25 + 2 * (look.background?.padding ?? 0);
    // A second text does not land on the first: each new one a step lower, coming round.
    const texts = this.store.collage.items.filter((item) => item.content.type === 'text').length;
    const step = (texts % 4) * canvas.height * 0.12 * (texts % 2 ? 1 : -1);
    const frame = { x: (canvas.width - width) / 2, y: Math.round((canvas.height - height) / 2 + step), width, height };
    look = lookFor(look, lightnessUnder(this.store.collage, frame));
    const content = { type: 'text', text: preset.sample, size, ...look };
    const provisional = { id, content, rotation: 0, frame };
    this.startTextEditing(id, { selectAll: true, provisional });
    await this.store.commit([{ op: 'addItem', id, content, frame }]);
    const editing = this.textEditing?.id === id ? this.textEditing : null;
    if (this.store.closed || !this.store.collage.items.some((item) => item.id === id)) {
      if (editing) { this.textEditing = null; editing.editor.remove(); }
      return;
    }
    this.store.select(id);
    if (editing) {
      editing.provisional = null;
      this.placeTextEditor();
      this.flushText(editing);
    }
  }

  pillFields() {
    return {
      color: $('text-pill-color').value, opacity: Number($('text-pill-opacity').value),
      cornerRadius: Number($('text-pill-radius').value), padding: Number($('text-pill-padding').value),
    };
  }

  outlineFields() { return { color: $('text-outline-color').value, width: Number($('text-outline-width').value) }; }

  /**
   * Changes some of the selected text's look, keeping its words and the rest of its look;
   * `fields` may be a function of the text's block as the saves before left it.
   */
  setTextLook(fields) {
    const id = this.store.selected;
    return this.store.commit((doc) => {
      const item = doc.collage.items.find((candidate) => candidate.id === id);
      if (!item || item.content.type !== 'text') return null;
      const current = blockOf(item.content);
      const block = { ...current, ...(typeof fields === 'function' ? fields(current) : fields) };
      // The words being typed go with the look, so a change of font does not undo typing.
      if (this.textEditing?.id === id && this.textEditing.editor.value.trim()) block.text = this.textEditing.editor.value;
      for (const key of Object.keys(block)) if (block[key] === null) delete block[key];
      return [{ op: 'setText', id, text: block }];
    });
  }

  /**
   * While a text slider moves, the text is written in the browser's fonts in its new look (the
   * renderer's pixels come back once the slider is let go and the change is saved).
   */
  previewTextLook(id) {
    const item = this.store.selectedItem();
    if (item?.content.type !== 'text') return;
    const value = $(id).value;
    const content = { ...item.content };
    const simple = { 'text-size': ['size', Number], 'text-line': ['lineSpacing', Number], 'text-letter': ['letterSpacing', Number],
      'text-color': ['color', String] }[id];
    if (simple) content[simple[0]] = simple[1](value);
    const pill = { 'text-pill-opacity': ['opacity', Number], 'text-pill-radius': ['cornerRadius', Number],
      'text-pill-padding': ['padding', Number], 'text-pill-color': ['color', String] }[id];
    if (pill && content.background) content.background = { ...content.background, [pill[0]]: pill[1](value) };
    const outline = { 'text-outline-width': ['width', Number], 'text-outline-color': ['color', String] }[id];
    if (outline && content.outline) content.outline = { ...content.outline, [outline[0]]: outline[1](value) };
    const index = this.store.collage.items.indexOf(item);
    const element = $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"]`);
    // A frame of its own (not the item's) draws the words in the browser and asks nothing of the server.
    element?.replaceWith(this.editor.canvas.drawItem({ ...item, content }, index, this.editor.canvas.viewScale, { ...item.frame }));
  }

  showTextValues() {
    $('text-size-value').textContent = `${$('text-size').value} pt`;
    $('text-line-value').textContent = `${Number($('text-line').value).toFixed(2)}×`;
    $('text-letter-value').textContent = `${Number($('text-letter').value).toFixed(2)} em`;
    $('text-pill-opacity-value').textContent = `${Math.round(Number($('text-pill-opacity').value) * 100)} %`;
    $('text-pill-radius-value').textContent = `${$('text-pill-radius').value} pt`;
    $('text-pill-padding-value').textContent = `${$('text-pill-padding').value} pt`;
    $('text-outline-width-value').textContent = `${$('text-outline-width').value} pt`;
    for (const id of ['text-color', 'text-pill-color', 'text-outline-color']) $(`${id}-value`).textContent = $(id).value;
  }

  /** The Text tab's controls follow the selected text. */
  updateTextPanel() {
    const item = this.store.selectedItem();
    const block = item?.content.type === 'text' ? blockOf(item.content) : null;
    $('text-style').hidden = !block;
    $('edit-text').hidden = !block;
    if (!block) return;
    const font = $('text-font');
    if (![...font.options].some((option) => option.value === block.font)) {
      font.append(new Option(block.font, block.font));
    }
    font.value = block.font;
    $('text-weight').value = String([300, 400, 600, 700, 800, 900].reduce((best, weight) =>
      (Math.abs(weight - (block.weight ?? 400)) < Math.abs(best - (block.weight ?? 400)) ? weight : best), 400));
    $('text-italic').checked = !!block.italic;
    $('text-size').max = String(Math.max(240, Math.ceil(block.size)));
    $('text-size').value = String(block.size);
    $('text-color').value = (block.color ?? '#1f1f1f').slice(0, 7);
    for (const align of ['left', 'center', 'right']) {
      $(`text-align-${align}`).setAttribute('aria-pressed', String((block.align ?? 'center') === align));
    }
    $('text-line').value = String(block.lineSpacing ?? 1);
    $('text-letter').value = String(block.letterSpacing ?? 0);
    $('text-pill').checked = !!block.background;
    $('text-pill-options').hidden = !block.background;
    const pill = block.background ?? { color: '#ffffff', opacity: 0.9, cornerRadius: 100, padding: Math.round(block.size * 0.35) };
    $('text-pill-color').value = pill.color.slice(0, 7);
    $('text-pill-opacity').value = String(pill.opacity);
    $('text-pill-radius').value = String(Math.min(100, pill.cornerRadius));
    $('text-pill-padding').value = String(pill.padding);
    $('text-outline').checked = !!block.outline;
    $('text-outline-options').hidden = !block.outline;
    const outline = block.outline ?? { color: '#1f1f1f', width: 2 };
    $('text-outline-color').value = outline.color.slice(0, 7);
    $('text-outline-width').value = String(outline.width);
    $('text-shadow').checked = !!block.shadow;
    this.showTextValues();
  }

  /**
   * Typing in place: a text area over the item, in the item's look. The drawn words hide while
   * keys are pressed and come back, from the renderer, once the pause has saved them.
   */
  startTextEditing(id, { selectAll = false, provisional = null } = {}) {
    const item = provisional ?? this.store.collage.items.find((candidate) => candidate.id === id);
    if (!item || item.content.type !== 'text' || this.store.previewing) return;
    if (this.textEditing?.id === id) { this.textEditing.editor.focus(); return; }
    this.finishTextEditing();
    if (this.store.selected !== id && !provisional) this.store.select(id);
    const editor = document.createElement('textarea');
    editor.className = 'text-editor resting';
    editor.id = 'text-editor';
    editor.setAttribute('aria-label', 'Text: type, then Escape when done');
    editor.maxLength = this.store.app.maximumTextLength ?? 2000;
    // Right-to-left words are ordered as the renderer orders them (by the paragraph's first letter).
    editor.dir = 'auto';
    editor.value = item.content.text;
    editor.spellcheck = true;
    $('stage').append(editor);
    const editing = { id, editor, timer: 0, sent: item.content.text, provisional };
    this.textEditing = editing;
    this.placeTextEditor();
    editor.focus({ preventScroll: true });
    if (selectAll) editor.select(); else editor.setSelectionRange(editor.value.length, editor.value.length);
    editor.addEventListener('compositionstart', () => { editing.composing = true; clearTimeout(editing.timer); });
    editor.addEventListener('compositionend', () => {
      editing.composing = false;
      editing.timer = setTimeout(() => this.flushText(editing), 600);
    });
    editor.addEventListener('input', () => {
      setStatus('Editing…');
      editor.classList.remove('resting');
      $('canvas').querySelector(`.item[data-id="${CSS.escape(id)}"]`)?.classList.add('typing');
      this.placeTextEditor();
      clearTimeout(editing.timer);
      // Words still being composed (an input method) are saved once they are chosen.
      if (!editing.composing) editing.timer = setTimeout(() => this.flushText(editing), 600);
    });
    editor.addEventListener('keydown', (event) => {
      if (event.isComposing || editing.composing) return;
      if (event.key === 'Escape' || (event.key === 'Enter' && (event.ctrlKey || event.metaKey))) {
        event.preventDefault();
        event.stopPropagation();
        this.finishTextEditing();
        $('canvas').querySelector(`.item[data-id="${CSS.escape(id)}"]`)?.focus({ preventScroll: true });
      }
    });
    // Another window taking the focus (to copy something, say) is not the end of typing.
    editor.addEventListener('blur', () => {
      if (this.textEditing === editing && document.hasFocus()) this.finishTextEditing();
    });
    this.editor.toolbar.updateToolbar();
  }

  /** Saves what was typed, when it is something new. */
  flushText(editing = this.textEditing) {
    if (!editing) return this.store.saving;
    clearTimeout(editing.timer);
    const text = editing.editor.value;
    // Not saved yet: the words go once the text is there (addText sends them).
    if (editing.provisional || editing.composing || text === editing.sent || !text.trim()) {
      if (!editing.composing) this.editor.typingSettled();
      return this.store.saving;
    }
    editing.sent = text;
    return this.setTextWords(editing.id, text);
  }

  setTextWords(id, text) {
    return this.store.commit((doc) => {
      const item = doc.collage.items.find((candidate) => candidate.id === id);
      if (!item || item.content.type !== 'text' || item.content.text === text) return null;
      return [{ op: 'setText', id, text: { ...blockOf(item.content), text } }];
    });
  }

  /** Whether words typed in a text wait for their pause to be saved. */
  textWaiting() {
    const editing = this.textEditing;
    return !!editing && !editing.provisional && editing.editor.value !== editing.sent;
  }

  /** Ends typing: the words are saved, and a text typed empty is removed (it would show nothing). */
  finishTextEditing() {
    const editing = this.textEditing;
    if (!editing) return;
    this.textEditing = null;
    clearTimeout(editing.timer);
    const text = editing.editor.value;
    editing.editor.remove();
    if (this.store.closed) return;
    if (!text.trim()) {
      this.store.commit([{ op: 'removeItem', id: editing.id }]).then(() => {
        if (this.store.selected === editing.id) this.store.select(null);
      });
      return;
    }
    // Sent again unless the saved text already reads so: a save refused while typing (a text
    // grown too tall, another window's change) must not cost the words.
    const saved = this.store.collage.items.find((item) => item.id === editing.id)?.content.text;
    if (text !== saved || text !== editing.sent) this.setTextWords(editing.id, text);
    else this.editor.canvas.render();
  }

  /** Keeps the text area on its item: after a save (the frame grows with the lines) and a redraw. */
  placeTextEditor() {
    const editing = this.textEditing;
    if (!editing) return;
    const item = this.store.collage.items.find((candidate) => candidate.id === editing.id) ?? editing.provisional;
    if (!item || item.content.type !== 'text') { this.finishTextEditing(); return; }
    const canvas = $('canvas');
    const scale = this.editor.canvas.viewScale;
    const editor = editing.editor;
    // The renderer sets the words' ink at the top of the frame; CSS puts some of the line above
    // the capitals. Lifting the overlay by that much keeps the words in place when the drawing
    // comes back (about a fifth of the size for the curated fonts).
    const lift = 0.2 * item.content.size * scale;
    Object.assign(editor.style, textCSS(item.content, scale), {
      left: `${canvas.offsetLeft + item.frame.x * scale}px`, top: `${canvas.offsetTop + item.frame.y * scale - lift}px`,
      width: `${item.frame.width * scale}px`, height: `${item.frame.height * scale}px`,
      transform: `rotate(${item.rotation}deg)`,
      // Growing with new lines, the overlay still turns about the frame's centre, as the drawing does.
      transformOrigin: `50% ${item.frame.height * scale / 2 + lift}px`,
    });
    editor.style.height = `${Math.max(item.frame.height * scale, editor.scrollHeight)}px`;
    if (!editor.classList.contains('resting')) {
      canvas.querySelector(`.item[data-id="${CSS.escape(editing.id)}"]`)?.classList.add('typing');
    }
  }

  /** The renderer's pixels for the words being typed have arrived: they replace the overlay's. */
  textDrawn(item) {
    const editing = this.textEditing;
    if (!editing || editing.id !== item.id || item.content.text !== editing.editor.value) return;
    editing.editor.classList.add('resting');
    $('canvas').querySelector(`.item[data-id="${CSS.escape(item.id)}"]`)?.classList.remove('typing');
  }
}
