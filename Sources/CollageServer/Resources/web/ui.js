// Small DOM helpers shared by the library and the editor.

/** Each photo shape from `/api/shapes` by id: its outline (unit x, y pairs in a frame 1.4 wide
 * and 1 tall) and whether it keeps its proportions in any frame (a heart) or fills it (an ellipse). */
const shapeOutlines = new Map();

/** Keeps the shapes' outlines, for layouts whose slots have a shape (hearts, bubbles). */
export function knowShapes(shapes) {
  for (const shape of shapes) {
    if (Array.isArray(shape.outline)) shapeOutlines.set(shape.id, { outline: shape.outline, keeps: !!shape.keepsProportions });
  }
}

/** `shape`'s outline in `box` (SVG polygon points), as the renderer cuts a photo in a frame of that size. */
function outlinePoints({ outline, keeps }, box) {
  const xs = [], ys = [];
  for (let i = 0; i + 1 < outline.length; i += 2) { xs.push(outline[i]); ys.push(outline[i + 1]); }
  if (!keeps) return xs.map((x, i) => `${box.x + x * box.width},${box.y + ys[i] * box.height}`).join(' ');
  // Drawn for a 1.4 × 1 frame: its own proportions, fitted and centred in this one.
  const left = Math.min(...xs) * 1.4, right = Math.max(...xs) * 1.4, top = Math.min(...ys), bottom = Math.max(...ys);
  const scale = Math.min(box.width / (right - left), box.height / (bottom - top));
  const dx = box.x + (box.width - (right - left) * scale) / 2, dy = box.y + (box.height - (bottom - top) * scale) / 2;
  return xs.map((x, i) => `${dx + (x * 1.4 - left) * scale},${dy + (ys[i] - top) * scale}`).join(' ');
}

/**
 * A layout drawn in a canvas's shape, each slot filled with one of `photos` (thumbnail URLs, in
 * slot order) and the rest grey, in the slot's own shape (a heart): how the collage would look
 * with it, not an abstract diagram.
 */
export function layoutPreview(template, canvas, photos = []) {
  const ns = 'http://www.w3.org/2000/svg';
  const long = Math.max(canvas.width, canvas.height);
  const width = (100 * canvas.width) / long, height = (100 * canvas.height) / long;
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('aria-hidden', 'true');
  const unique = `p${Math.random().toString(36).slice(2, 8)}`;
  template.unitSlots.forEach((slot, index) => {
    const box = {
      x: slot.x * width + 1.5, y: slot.y * height + 1.5,
      width: Math.max(1, slot.width * width - 3), height: Math.max(1, slot.height * height - 3),
    };
    const cut = shapeOutlines.get(template.shapes?.[index]);
    let rect;
    if (cut && template.shapes[index] !== 'rectangle') {
      rect = document.createElementNS(ns, 'polygon');
      rect.setAttribute('points', outlinePoints(cut, box));
      rect.setAttribute('fill', '#c7d2e4');
    } else {
      rect = document.createElementNS(ns, 'rect');
      Object.entries({ ...box, rx: 2, fill: '#c7d2e4' }).forEach(([key, value]) => rect.setAttribute(key, value));
    }
    svg.append(rect);
    if (!photos[index]) return;
    const clip = document.createElementNS(ns, 'clipPath');
    clip.id = `${unique}-${index}`;
    const shape = rect.cloneNode();
    clip.append(shape);
    const image = document.createElementNS(ns, 'image');
    Object.entries({ ...box, href: photos[index], preserveAspectRatio: 'xMidYMid slice', 'clip-path': `url(#${clip.id})` })
      .forEach(([key, value]) => image.setAttribute(key, value));
    svg.append(clip, image);
  });
  return svg;
}

/**
 * A button showing one layout drawn with `photos` (see `layoutPreview`), its name, and a badge
 * for premium layouts (with a lock while premium is `locked`); `note` adds a line under the name
 * ("Fits all", marked; "2 empty", plain when not `fits`).
 */
export function layoutButton(template, canvas, photos, { pressed = null, note = '', fits = true, locked = false } = {}) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'layout-option';
  button.dataset.template = template.id;
  if (pressed !== null) button.setAttribute('aria-pressed', String(pressed));
  const tier = template.premium ? (locked ? ', premium, locked' : ', premium') : '';
  // The note is read out too ("1 empty"): it is what tells the layouts apart for these photos.
  button.setAttribute('aria-label', `${template.name}, ${template.slots} frames${note ? `, ${note}` : ''}${tier}`);
  const name = document.createElement('span');
  name.textContent = template.name;
  button.append(layoutPreview(template, canvas, photos), name);
  if (note) {
    const line = document.createElement('span');
    line.className = fits ? 'fits' : 'fits partial';
    line.textContent = note;
    button.append(line);
  }
  if (template.premium) {
    const badge = document.createElement('span');
    badge.className = locked ? 'premium locked' : 'premium';
    // A drawn padlock: an emoji needs a colour-emoji font, which not every machine has.
    if (locked) badge.innerHTML = '<svg viewBox="0 0 24 24"><rect x="4" y="10" width="16" height="12" rx="2"/><path d="M8 10V7a4 4 0 0 1 8 0v3"/></svg>';
    badge.append(locked ? 'Pro' : '★ Pro');
    badge.setAttribute('aria-hidden', 'true');
    button.append(badge);
  }
  return button;
}

/** The words for one file an upload refused (the server's message may name the file already). */
function failureText(failure) {
  return failure.message.startsWith(failure.file) ? failure.message : `${failure.file}: ${failure.message}`;
}

/**
 * Lists, in `list` (a `ul`), why an upload refused what it refused: inside a dialog, where a
 * message in the corner would lie under the dialog's backdrop. Hidden when nothing was refused.
 */
export function listUploadFailures(list, result) {
  const failures = result?.errors ?? [];
  list.replaceChildren(...failures.map((failure) => {
    const item = document.createElement('li');
    item.textContent = failureText(failure);
    return item;
  }));
  list.hidden = failures.length === 0;
}

/** Says, file by file, why an upload refused what it refused (the server's message may name the file already). */
/**
 * Lists `files` under an upload's progress bar in `container`, each with its own bar, so a slow
 * Wi-Fi upload shows which photo is on its way. Returns the updater for `api.upload`'s progress.
 */
export function showUploadProgress(container, files, onTotal) {
  container.querySelector('.upload-files')?.remove();
  const list = document.createElement('ul');
  list.className = 'upload-files';
  list.hidden = files.length < 2;
  const bars = files.map((file) => {
    const row = document.createElement('li');
    const name = document.createElement('span');
    name.textContent = file.name;
    const bar = document.createElement('progress');
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute('aria-label', `Upload of ${file.name}`);
    row.append(name, bar);
    list.append(row);
    return bar;
  });
  container.append(list);
  const text = container.querySelector(':scope > span');
  return (fraction, perFile = []) => {
    onTotal(fraction);
    perFile.forEach((done, index) => { if (bars[index]) bars[index].value = Math.round(done * 100); });
    // Over Wi-Fi a whole upload takes a while: say how far it has got.
    const sent = perFile.filter((done) => done >= 1).length;
    if (text && files.length > 1) text.textContent = `Uploading ${Math.min(sent + 1, files.length)} of ${files.length}…`;
  };
}

export function toastUploadFailures(result) {
  for (const failure of result?.errors ?? []) {
    toast(failureText(failure), 'error');
  }
}

/** Replaces a select's options with [value, label] pairs. */
export function fillSelect(select, options, selected) {
  select.replaceChildren(...options.map(([value, label]) => {
    const option = new Option(label, value);
    option.selected = value === selected;
    return option;
  }));
}


/** The element with `id`. */
export const $ = (id) => document.getElementById(id);

/** A fresh item id: unique enough within one collage, short enough to read. */
export const newID = () => `i${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/**
 * Asks in a styled dialog instead of the browser's `prompt` or `confirm`. With `value` it shows a
 * text field and resolves to the trimmed text (an empty one is refused in the dialog); without,
 * it resolves to `true`. The cancel button (named by `cancel`), Escape or a click outside
 * resolve to `null`. A `danger`ous choice (red) starts with the focus on the cancel button.
 */
export function ask({ title, message = '', value = undefined, confirm = 'OK', cancel = 'Cancel', danger = false }) {
  const dialog = $('ask-dialog');
  const input = $('ask-input');
  const error = $('ask-error');
  $('ask-title').textContent = title;
  $('ask-message').textContent = message;
  $('ask-message').hidden = !message;
  const button = $('ask-confirm');
  button.textContent = confirm;
  $('ask-cancel').textContent = cancel;
  button.classList.toggle('danger', danger);
  input.hidden = value === undefined;
  input.value = value ?? '';
  error.hidden = true;
  return new Promise((resolve) => {
    const finish = (result) => {
      dialog.removeEventListener('close', onClose);
      button.removeEventListener('click', onConfirm);
      $('ask-cancel').removeEventListener('click', onCancel);
      dialog.removeEventListener('click', onBackdrop);
      if (dialog.open) dialog.close();
      resolve(result);
    };
    const onConfirm = (event) => {
      if (value === undefined) { event.preventDefault(); finish(true); return; }
      const text = input.value.trim();
      event.preventDefault();
      if (!text) { error.textContent = 'A title cannot be empty.'; error.hidden = false; input.focus(); return; }
      finish(text);
    };
    // The close event of a question just answered comes a moment after it closed: a question
    // asked again at once (Escape, Enter on Keep editing, Escape) was closed by it the moment it
    // opened. A dialog open again when its close event comes was not closed by it.
    const onClose = () => { if (!dialog.open) finish(null); };
    const onCancel = () => finish(null);
    // A click on the backdrop (the dialog element itself, outside its form) cancels.
    const onBackdrop = (event) => { if (event.target === dialog) finish(null); };
    // The confirm button is the form's only submit button, so Enter in the field confirms.
    button.addEventListener('click', onConfirm);
    $('ask-cancel').addEventListener('click', onCancel);
    dialog.addEventListener('close', onClose);
    dialog.addEventListener('click', onBackdrop);
    dialog.showModal();
    // Enter does what the focused button says: never the dangerous choice unasked (Escape then
    // Enter threw a refine's strokes away).
    if (value !== undefined) { input.focus(); input.select(); } else (danger ? $('ask-cancel') : button).focus();
  });
}

let topBars = null;

/**
 * On a phone the messages hang under the top bars (the title's, and the editor's with Undo and
 * Export), whose height depends on the view and the font: never over a button. Where the stage
 * has room for them under the canvas, above the selected item's tools, they hang there instead:
 * under the bars they covered the top of the canvas, often the sticker just lifted. The place
 * is measured again whenever a bar changes size or shows (a message from the library is still up
 * when a collage opens and its bar appears) and whenever a message comes.
 */
function placeMessages() {
  const region = $('toasts');
  const bottoms = [...document.querySelectorAll('header.bar, .editor-top')].map((bar) => bar.getBoundingClientRect().bottom);
  let top = Math.max(0, ...bottoms) + 8;
  const canvas = document.getElementById('canvas'), stage = document.getElementById('stage');
  if (canvas && stage && canvas.getClientRects().length && window.matchMedia('(max-width: 700px)').matches) {
    const foot = canvas.getBoundingClientRect().bottom + 8;
    const tools = document.getElementById('item-tools');
    const floors = [stage.getBoundingClientRect().bottom];
    if (tools && !tools.hidden && tools.getClientRects().length) floors.push(tools.getBoundingClientRect().top);
    if (Math.min(...floors) - 8 - foot >= region.getBoundingClientRect().height) top = foot;
  }
  region.style.setProperty('--under-bars', `${top}px`);
}

function watchTopBars() {
  const place = placeMessages;
  if (!topBars) {
    topBars = new ResizeObserver(place);
    for (const bar of document.querySelectorAll('header.bar, .editor-top')) topBars.observe(bar);
  }
  place();
}

/**
 * A short message in the corner that stays a few seconds (errors longer) and can be closed:
 * for what finished in the background (an upload, an export, a lift) and what went wrong, so
 * it is not overwritten by the next "All changes saved".
 */
export function toast(text, kind = 'info', action = null) {
  const region = $('toasts');
  const card = document.createElement('div');
  card.className = `toast ${kind}`;
  card.setAttribute('role', kind === 'error' ? 'alert' : 'status');
  const message = document.createElement('span');
  message.textContent = text;
  const close = document.createElement('button');
  close.type = 'button';
  close.className = 'toast-close';
  close.setAttribute('aria-label', 'Dismiss');
  close.textContent = '×';
  let acted = false;
  // The selected item's floating tools keep out of the messages' way (see Toolbar.placeItemTools).
  const changed = () => window.dispatchEvent(new Event('toasts-changed'));
  const dismiss = () => { clearTimeout(timer); card.remove(); changed(); };
  close.addEventListener('click', dismiss);
  card.append(message);
  // An action (Undo) keeps the message up a little longer, so there is time to press it.
  if (action) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'toast-action';
    button.textContent = action.label;
    button.addEventListener('click', () => { acted = true; dismiss(); action.run(); });
    card.append(button);
  }
  card.append(close);
  watchTopBars();
  region.append(card);
  placeMessages();
  changed();
  // Only the newest few stay: a burst of failed files must not cover the canvas.
  while (region.children.length > 4) region.firstElementChild.remove();
  // The time to read it, paused while the pointer or the keyboard is on it.
  let left = action?.timeout ?? (kind === 'error' ? 9000 : 4500);
  let started = Date.now();
  let timer = 0;
  const expire = () => { dismiss(); if (!acted) action?.expired?.(); };
  const pause = () => { clearTimeout(timer); left -= Date.now() - started; };
  const resume = () => {
    if (card.matches(':hover, :focus-within')) return;
    started = Date.now();
    timer = setTimeout(expire, Math.max(1500, left));
  };
  card.addEventListener('pointerenter', pause);
  card.addEventListener('focusin', pause);
  card.addEventListener('pointerleave', resume);
  card.addEventListener('focusout', () => setTimeout(resume));
  timer = setTimeout(expire, left);
  return card;
}
