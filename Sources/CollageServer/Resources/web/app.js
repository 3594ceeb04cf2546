// The page: a library view and an editor view, switched by the URL's hash (#/ and #/c/ID).
import { api, setStatus } from './api.js';
import { Editor } from './editor.js';
import { isLocked, loadLicence, offerUnlock, premium } from './licence.js';
import { setUpPairing } from './pairing.js';
import { openSheet } from './sheet.js';
import {
  ask, fillSelect, knowShapes, layoutButton, layoutPreview, listUploadFailures, showUploadProgress, toast, toastUploadFailures,
} from './ui.js';

const state = { templates: [], presets: [], editor: null, collages: [], deleting: new Map() };

async function showLibrary() {
  document.getElementById('editor-view').hidden = true;
  document.getElementById('library-view').hidden = false;
  document.body.dataset.view = 'library';
  // The editor's last word ("Exported", "All changes saved") is about a collage no longer open.
  if (state.editor) setStatus('');
  state.editor?.close();
  state.editor = null;
  document.title = 'Collage';
  const list = document.getElementById('collage-list');
  let collages = [];
  try {
    collages = await api.collages();
  } catch (error) {
    setStatus(error.message, 'error');
  }
  // A collage deleted a moment ago stays out of sight while its Undo is on offer.
  collages = collages.filter((collage) => !state.deleting.has(collage.id));
  document.getElementById('empty-library').hidden = collages.length > 0;
  document.getElementById('library-tools').hidden = collages.length === 0;
  state.collages = collages;
  list.replaceChildren(...collages.map((collage) => {
    const item = document.createElement('li');
    item.className = 'collage-card';
    item.dataset.id = collage.id;
    const link = document.createElement('a');
    link.href = `#/c/${collage.id}`;
    link.setAttribute('aria-label', `Open ${collage.title}`);
    const image = document.createElement('img');
    image.src = collage.thumbnail;
    image.alt = `${collage.title}, ${collage.items} items`;
    image.loading = 'lazy';
    // A collage the renderer refuses (say one stored by an older version) still gets a card.
    image.addEventListener('error', () => {
      const missing = document.createElement('div');
      missing.className = 'thumbnail-missing';
      missing.textContent = 'No preview: open it to see what is wrong';
      image.replaceWith(missing);
    }, { once: true });
    // A collage with nothing in it yet shows its layout, not a blank square.
    if (collage.items === 0) {
      const template = state.templates.find((candidate) => candidate.id === collage.template);
      const empty = document.createElement('div');
      empty.className = 'thumbnail-empty';
      if (template) empty.append(layoutPreview(template, { width: 1, height: 1 }));
      const hint = document.createElement('span');
      hint.textContent = template ? `${template.name}, no photos yet` : 'No photos yet';
      empty.append(hint);
      link.append(empty);
    } else {
      link.append(image);
    }
    const meta = document.createElement('div');
    meta.className = 'meta';
    const title = document.createElement('span');
    title.className = 'title';
    title.textContent = collage.title;
    const actions = document.createElement('div');
    actions.className = 'actions';
    const button = (label, action, name) => {
      const element = document.createElement('button');
      element.textContent = label;
      element.setAttribute('aria-label', `${name} ${collage.title}`);
      element.addEventListener('click', action);
      return element;
    };
    actions.append(
      button('Open', () => { location.hash = `#/c/${collage.id}`; }, 'Open'),
      button('Rename', async () => {
        const title = await ask({ title: 'Rename collage', value: collage.title, confirm: 'Rename' });
        if (title === null) return;
        try { await api.rename(collage.id, title); showLibrary(); } catch (error) { toast(error.message, 'error'); }
      }, 'Rename'),
      button('Duplicate', async () => {
        try { await api.duplicate(collage.id); showLibrary(); } catch (error) { toast(error.message, 'error'); }
      }, 'Duplicate'),
      button('Delete', () => deleteWithUndo(collage), 'Delete'),
    );
    meta.append(title, actions);
    item.append(link, meta);
    return item;
  }));
  arrangeLibrary();
}

/**
 * Deletes a collage the way a photo app does: the card goes at once and a message offers Undo
 * for a few seconds; only then is the collage deleted in the library. Leaving the page before
 * deletes it too (the request outlives the page), so what was asked is what happens.
 */
function deleteWithUndo(collage) {
  const finish = () => {
    if (!state.deleting.delete(collage.id)) return;
    api.remove(collage.id, { keepalive: true }).catch((error) => toast(`“${collage.title}” was not deleted: ${error.message}`, 'error'));
  };
  state.deleting.set(collage.id, finish);
  // The Delete button that had the keyboard goes with its card: the keyboard moves to the next
  // card (or the previous one, or the search), not to the top of the page.
  // Its picture, not its Delete button: a second Enter there deleted another collage. Focused
  // once the cards are arranged, which takes them out and back (and the focus with them).
  const card = document.querySelector(`.collage-card[data-id="${CSS.escape(collage.id)}"]`);
  // The next card the search shows (one it hides takes no focus), else the one before.
  const shown = (from, step) => {
    let sibling = from?.[step];
    while (sibling?.hidden) sibling = sibling[step];
    return sibling;
  };
  const next = shown(card, 'nextElementSibling') ?? shown(card, 'previousElementSibling');
  card?.remove();
  state.collages = state.collages.filter((candidate) => candidate.id !== collage.id);
  document.getElementById('empty-library').hidden = state.collages.length > 0;
  arrangeLibrary();
  (next?.querySelector('a') ?? document.getElementById('library-search')).focus();
  toast(`Deleted “${collage.title}”`, 'info', {
    label: 'Undo', timeout: 8000, expired: finish,
    run: () => {
      state.deleting.delete(collage.id);
      if (!document.getElementById('library-view').hidden) showLibrary();
    },
  });
}

window.addEventListener('pagehide', () => { for (const finish of [...state.deleting.values()]) finish(); });

let markReady;
/** Settles when the layouts, presets and licence are known and the page's controls are live. */
const pageReady = new Promise((resolve) => { markReady = resolve; });

/**
 * Small copies of picked files, made in the page (off its main thread where the browser can),
 * so layouts can be drawn with the photos before they are uploaded: object URLs, `null` for a
 * file the browser cannot decode (HEIC in most of them), drawn as an empty frame.
 */
async function localThumbnails(files, side = 320) {
  return Promise.all(files.map(async (file) => {
    try {
      const canvas = document.createElement('canvas');
      await drawSmall(file, side, canvas);
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.85));
      return blob ? URL.createObjectURL(blob) : null;
    } catch {
      return null;
    }
  }));
}

/**
 * Draws `file` on `canvas` at most `side` pixels long (upright, as its EXIF says). A JPEG is
 * decoded small where the browser can (WebCodecs asked for a small size decodes an eighth of
 * the pixels, about twice as fast as a whole decode); anything else, or a browser without it,
 * is decoded whole and scaled.
 */
async function drawSmall(file, side, canvas) {
  const draw = (image, width, height) => {
    const scale = Math.min(1, side / Math.max(width, height));
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
  };
  // How a size asked of ImageDecoder is kept is each browser's own: Chromium keeps the photo's
  // shape (it picks a scale of the JPEG's), which is measured here; another might stretch.
  const chromium = navigator.userAgentData?.brands?.some((brand) => brand.brand === 'Chromium');
  if (chromium && 'ImageDecoder' in window && file.type === 'image/jpeg') {
    let decoder = null;
    try {
      // Chromium decodes at the largest eighth whose area is within the one asked for: twice
      // the side asked for comes out at least that long, at an eighth for a 12 MP photo.
      decoder = new ImageDecoder({
        data: file.stream(), type: file.type, desiredWidth: 2 * side, desiredHeight: 2 * side,
      });
      const { image } = await decoder.decode();
      try { draw(image, image.displayWidth, image.displayHeight); } finally { image.close(); }
      return;
    } catch {
      // Decoded whole below: the same file may still be readable that way.
    } finally {
      decoder?.close();
    }
  }
  const bitmap = await createImageBitmap(file, { resizeWidth: side, resizeQuality: 'low' });
  try { draw(bitmap, bitmap.width, bitmap.height); } finally { bitmap.close(); }
}

/**
 * "New from photos": the layouts are offered at once, drawn with the page's own small copies of
 * the chosen files while they upload, the ones with a frame for every photo first; they are
 * drawn again with the library's thumbnails when the upload is done. Picking one makes the
 * collage as soon as the photos are in the library.
 */
async function startFromPhotos(files) {
  const dialog = document.getElementById('suggest-dialog');
  const grid = document.getElementById('suggest-grid');
  const progress = document.getElementById('suggest-progress');
  grid.replaceChildren();
  delete grid.dataset.drawn;
  const smart = document.getElementById('suggest-smart');
  smart.hidden = true;
  document.getElementById('suggest-title').textContent = 'Choose a layout';
  document.getElementById('suggest-text').textContent = '';
  const failures = document.getElementById('suggest-failures');
  listUploadFailures(failures, null);
  progress.hidden = false;
  progress.querySelector('progress').value = 0;
  progress.querySelector('span').textContent = `Uploading ${files.length} photo${files.length === 1 ? '' : 's'}…`;
  dialog.showModal();
  const uploading = api.upload(files, showUploadProgress(progress, files, (fraction) => { progress.querySelector('progress').value = Math.round(fraction * 100); }));
  // Settles with the library's photos, or with null when the upload failed (said once, here).
  // Said in the dialog while it is open (a message in the corner lay under its backdrop), and
  // said again as messages once it closes (every file refused, or a layout already chosen),
  // so no refusal goes unread.
  let listed = null;
  dialog.addEventListener('close', () => { if (listed) toastUploadFailures(listed); }, { once: true });
  const uploaded = uploading.then((result) => {
    if (dialog.open && result?.errors?.length) {
      listUploadFailures(failures, result);
      listed = result;
    } else {
      toastUploadFailures(result);
    }
    return result.photos ?? [];
  }, (error) => {
    dialog.close();
    toast(`Upload failed: ${error.message}`, 'error');
    return null;
  }).finally(() => { progress.hidden = true; });
  const local = await localThumbnails(files);
  await pageReady;
  let making = false;
  // One collage per choice, however often a button is pressed while it is being made.
  const make = async (template) => {
    if (making) return;
    making = true;
    for (const option of dialog.querySelectorAll('#suggest-grid button, #suggest-smart')) option.disabled = true;
    try {
      const photos = await uploaded;
      if (!photos?.length || !dialog.open) { dialog.close(); return; }
      // No title: the server names it after the day, as people name an album.
      const created = await api.create({ template, aspect: '1:1', photos: photos.map((photo) => photo.id) });
      dialog.close();
      location.hash = `#/c/${created.collage.id}`;
    } catch (error) {
      toast(error.message, 'error');
      for (const option of dialog.querySelectorAll('#suggest-grid button, #suggest-smart')) option.disabled = false;
    } finally {
      making = false;
    }
  };
  const offer = (count, thumbnails) => {
    document.getElementById('suggest-text').textContent =
      `For your ${count} photo${count === 1 ? '' : 's'}: the layouts with a frame for each come first.`;
    const distance = (template) => (template.slots >= count ? template.slots - count : 100 + count - template.slots);
    const ranked = [...state.templates].sort((a, b) => distance(a) - distance(b) || Number(a.premium) - Number(b.premium));
    const canvas = { width: 1, height: 1 };
    // First: a layout made for these photos, every one of them whole (up to 40).
    smart.hidden = count > 40;
    smart.disabled = making;
    document.getElementById('suggest-smart-text').textContent =
      `Made for your ${count === 1 ? 'photo' : `${count} photos`}: each keeps its shape, with even gaps`;
    smart.onclick = () => make('auto');
    if (!smart.hidden && !grid.contains(document.activeElement)) queueMicrotask(() => smart.focus());
    const focused = grid.contains(document.activeElement) ? document.activeElement.dataset.template : null;
    grid.replaceChildren(...ranked.map((template, index) => {
      // Each says how it takes these photos: every one in a frame, with frames to spare (left
      // empty), or fewer frames than photos (the rest lie free on top).
      const spare = template.slots - count;
      const note = spare === 0 ? 'Fits all' : spare > 0 ? `${spare} empty` : `Holds ${template.slots}`;
      const button = layoutButton(template, canvas, thumbnails, { note, fits: spare === 0, locked: isLocked(template) });
      button.disabled = making;
      button.addEventListener('click', async () => {
        if (isLocked(template)) {
          // The sheet opens over this one; unlocking makes the collage with the layout chosen.
          const choice = await offerUnlock({ template, templates: state.templates, canvas, photos: thumbnails });
          if (choice !== 'unlocked') { button.focus(); return; }
          for (const badge of grid.querySelectorAll('.layout-option .premium.locked')) {
            badge.className = 'premium';
            badge.textContent = '★ Pro';
          }
        }
        await make(template.id);
      });
      // The keyboard starts on the layout made for these photos (free, and every photo fits);
      // on the first grid tile it started on a premium layout when that fitted them all.
      if (focused ? template.id === focused : index === 0 && smart.hidden) queueMicrotask(() => button.focus());
      return button;
    }));
  };
  if (dialog.open) {
    offer(files.length, local.map((url) => url ?? ''));
    grid.dataset.drawn = 'local';
  }
  const photos = await uploaded;
  // Cancelled while the photos went up: they stay in the library, and no dialog comes back.
  if (photos === null || !photos.length || !dialog.open) {
    if (photos !== null && !photos.length) dialog.close();
    for (const url of local) if (url) URL.revokeObjectURL(url);
    return;
  }
  offer(photos.length, photos.map((photo) => photo.thumbnail));
  grid.dataset.drawn = 'library';
  for (const url of local) if (url) URL.revokeObjectURL(url);
}

/** Shows the cards that match the search, in the chosen order, without asking the server again. */
function arrangeLibrary() {
  const query = document.getElementById('library-search').value.trim().toLocaleLowerCase();
  const order = document.getElementById('library-sort').value;
  const byID = new Map((state.collages ?? []).map((collage) => [collage.id, collage]));
  const list = document.getElementById('collage-list');
  const cards = [...list.children];
  const key = {
    updated: (collage) => -Date.parse(collage.updated),
    created: (collage) => -Date.parse(collage.created),
    title: (collage) => collage.title.toLocaleLowerCase(),
  }[order];
  cards.sort((a, b) => {
    const [x, y] = [key(byID.get(a.dataset.id)), key(byID.get(b.dataset.id))];
    return typeof x === 'string' ? x.localeCompare(y) : x - y;
  });
  let shown = 0;
  for (const card of cards) {
    const matches = !query || byID.get(card.dataset.id).title.toLocaleLowerCase().includes(query);
    card.hidden = !matches;
    if (matches) shown += 1;
  }
  // Put back in order without losing the keyboard's place among them.
  const focused = list.contains(document.activeElement) ? document.activeElement : null;
  list.replaceChildren(...cards);
  focused?.focus({ preventScroll: true });
  const raw = document.getElementById('library-search').value.trim();
  const all = `${cards.length} collage${cards.length === 1 ? '' : 's'}`;
  // A search that finds nothing says so, rather than leaving an empty page.
  document.getElementById('library-count').textContent =
    !query ? '' : shown ? `${shown} of ${all}` : `No collage title has “${raw}” in it (of ${all})`;
}

async function showEditor(id) {
  document.getElementById('library-view').hidden = true;
  document.getElementById('editor-view').hidden = false;
  // The editor keeps the top bar for the collage; pairing is the library page's.
  document.body.dataset.view = 'editor';
  state.editor?.close();
  state.editor = new Editor(id, state);
  await state.editor.open();
}

function route() {
  const match = location.hash.match(/^#\/c\/([^/]+)$/);
  if (match) showEditor(decodeURIComponent(match[1]));
  else showLibrary();
}

async function start() {
  try {
    [state.templates, state.presets, state.looks, state.shapes] = await Promise.all([
      api.templates(), api.presets(), api.filters(), api.shapes()]);
    knowShapes(state.shapes?.shapes ?? []);
    const session = await api.session();
    state.stickers = session.stickers;
    state.minimumItemSide = session.minimumItemSide;
    state.minimumVisible = session.minimumVisible ?? 20;
    state.maximumTextLength = session.maximumTextLength;
    state.drawingGeneration = session.drawingGeneration ?? '';
    setUpPairing(session);
  } catch (error) {
    setStatus(`Cannot reach the editor's server: ${error.message}`, 'error');
    return;
  }
  try {
    await loadLicence();
  } catch (error) {
    setStatus(`Premium layouts stay locked: ${error.message}`, 'error');
  }
  // The layout menu marks premium layouts, with a lock while premium is locked.
  const fillTemplates = () => {
    const select = document.getElementById('create-template');
    fillSelect(select, state.templates.map((t) => [t.id, `${t.name}${t.premium ? (premium.unlocked ? ' ★' : ' (Premium)') : ''}`]),
      select.value || 'grid2x2');
  };
  fillTemplates();
  window.addEventListener('licencechange', fillTemplates);
  // A key added on the command line or in another window unlocks this page when it is looked at again.
  window.addEventListener('focus', () => loadLicence().catch(() => {}));
  fillSelect(document.getElementById('create-aspect'), state.presets.map((p) => [p.id, `${p.name} (${p.id})`]), '1:1');
  document.getElementById('create-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const template = state.templates.find((candidate) => candidate.id === form.get('template'));
    if (isLocked(template)) {
      const choice = await offerUnlock({ template, templates: state.templates });
      if (choice !== 'unlocked') return;
      toast(`Collage Premium unlocked${premium.licence ? ` for ${premium.licence.licensee}` : ''}: every layout is yours`, 'success');
    }
    try {
      const title = String(form.get('title') ?? '').trim();
      const created = await api.create({
        ...(title ? { title } : {}), template: form.get('template'), aspect: form.get('aspect'),
      });
      // The next collage starts as a new one, not as a copy of this one's title.
      event.target.elements.title.value = '';
      location.hash = `#/c/${created.collage.id}`;
    } catch (error) {
      setStatus(error.message, 'error');
    }
  });
  document.getElementById('library-search').addEventListener('input', arrangeLibrary);
  document.getElementById('library-sort').addEventListener('change', arrangeLibrary);
  window.addEventListener('hashchange', route);
  route();
  document.documentElement.dataset.ready = 'true';
  markReady();
}

document.getElementById('open-sheet').addEventListener('click', async () => {
  await pageReady;
  openSheet();
});

// Photos picked while the page is still starting are not lost: the upload begins at once and the
// layouts are offered once they are known.
document.getElementById('start-photos').addEventListener('change', (event) => {
  const files = [...event.target.files];
  event.target.value = '';
  if (files.length) startFromPhotos(files);
});
start();
