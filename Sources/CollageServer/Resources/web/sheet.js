// The sticker sheet: the library's stickers packed by the server onto pages, drawn here from the
// very layout the PDF and SVG downloads hold (the server keeps the sheet it made).
import { api, setStatus } from './api.js';
import { toast } from './ui.js';

const svgNS = 'http://www.w3.org/2000/svg';
const dialog = document.getElementById('sheet-dialog');
const form = document.getElementById('sheet-form');
let stickers = [];
let chosen = new Set();
let sheet = null;
let pending = 0;
let inFlight = null;
let debounce = null;
/** The collage whose stickers (in their looks) the sheet is of, or null for the library's. */
let collageID = null;
/** The most stickers one sheet holds (the server's bound). */
const sheetLimit = 100;

function element(name, attributes = {}) {
  const node = document.createElementNS(svgNS, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

/** One page, in millimetres: paper, stickers, registration marks, then the cut lines on top. */
function drawPage(made, page) {
  const svg = element('svg', {
    viewBox: `0 0 ${made.pageWidth} ${made.pageHeight}`, class: 'sheet-page', role: 'img',
    'aria-label': `Page ${page} of ${made.pages}`,
  });
  svg.append(element('rect', { width: made.pageWidth, height: made.pageHeight, fill: '#fff' }));
  const onPage = made.placements.filter((placement) => placement.page === page);
  for (const placement of onPage) {
    const group = element('g', { transform: `matrix(${placement.matrix.join(' ')})` });
    // Only the sticker's canvas is printed: the picture is clipped to it, as in the PDF.
    const canvas = element('svg', { width: placement.canvas.width, height: placement.canvas.height, overflow: 'hidden' });
    const image = element('image', {
      // The picture as it prints: a collage's sticker in its look (outline, effect).
      href: placement.picture ?? `/api/stickers/${encodeURIComponent(placement.sticker)}/image`, preserveAspectRatio: 'none',
      x: placement.image.x, y: placement.image.y, width: placement.image.width, height: placement.image.height,
    });
    canvas.append(image);
    group.append(canvas);
    svg.append(group);
  }
  for (const [x, y, width, height] of made.marks) svg.append(element('rect', { x, y, width, height, fill: '#000' }));
  const lines = element('g', { class: 'cut-lines', fill: 'none', stroke: '#ec008c', 'stroke-width': 0.35 });
  for (const placement of onPage) lines.append(element('path', { d: placement.cutLine }));
  svg.append(lines);
  return svg;
}

async function remake() {
  const ticket = ++pending;
  inFlight?.abort();
  inFlight = null;
  const data = new FormData(form);
  form.elements.sizeValue.value = `${data.get('size')} mm`;
  const pages = document.getElementById('sheet-pages');
  const summary = document.getElementById('sheet-summary');
  for (const button of [document.getElementById('sheet-pdf'), document.getElementById('sheet-svg')]) button.disabled = true;
  // An offer belongs to the sheet it was made for.
  document.getElementById('sheet-suggestion').hidden = true;
  if (!chosen.size && !collageID) {
    dialog.removeAttribute('aria-busy');
    pages.replaceChildren();
    summary.textContent = stickers.length
      ? 'Choose at least one sticker.'
      : 'No stickers yet: lift one from a photo in a collage (select the photo, then Lift subject).';
    return;
  }
  summary.textContent = 'Packing…';
  dialog.setAttribute('aria-busy', 'true');
  const controller = new AbortController();
  inFlight = controller;
  try {
    const made = await api.sheet({
      ...(collageID ? { collage: collageID } : {
        stickers: stickers.filter((sticker) => chosen.has(sticker.id)).map((sticker) => sticker.id),
      }),
      page: data.get('page'), size: Number(data.get('size')), cut: data.get('cut'), marks: data.get('marks') === 'on',
      turnToFit: data.get('turnToFit') === 'on',
    }, controller.signal);
    if (ticket !== pending) return;
    sheet = made;
    const drawn = [];
    for (let page = 1; page <= made.pages; page += 1) drawn.push(drawPage(made, page));
    pages.replaceChildren(...drawn);
    const count = made.placements.length;
    summary.textContent = `${count} sticker${count === 1 ? '' : 's'} on ${made.pages} page${made.pages === 1 ? '' : 's'}; `
      + `the cut shapes cover ${Math.round(made.coverage * 100)} % of the paper.`;
    // One sticker alone on a last page: say so, and offer what fits them all on fewer pages.
    const offer = document.getElementById('sheet-suggestion');
    offer.hidden = !made.suggestion;
    if (made.suggestion) {
      document.getElementById('sheet-suggestion-text').textContent = made.suggestion.text;
      const apply = document.getElementById('sheet-suggestion-apply');
      apply.textContent = made.suggestion.size ? `Use ${made.suggestion.size} mm` : 'Turn to fit';
      apply.onclick = () => {
        if (made.suggestion.size) form.elements.size.value = String(made.suggestion.size);
        if (made.suggestion.turnToFit) form.elements.turnToFit.checked = true;
        remake();
      };
    }
    for (const button of [document.getElementById('sheet-pdf'), document.getElementById('sheet-svg')]) button.disabled = false;
  } catch (error) {
    if (ticket !== pending) return;
    sheet = null;
    pages.replaceChildren();
    summary.textContent = `No sheet: ${error.message}`;
  } finally {
    if (ticket === pending) dialog.removeAttribute('aria-busy');
  }
}

function drawChoices() {
  const strip = document.getElementById('sheet-stickers');
  strip.replaceChildren(...stickers.map((sticker, index) => {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'sheet-choice';
    button.setAttribute('aria-pressed', String(chosen.has(sticker.id)));
    button.setAttribute('aria-label', `Sticker ${index + 1}`);
    const image = document.createElement('img');
    image.src = sticker.image;
    image.alt = '';
    button.append(image);
    button.addEventListener('click', () => {
      if (chosen.has(sticker.id)) chosen.delete(sticker.id);
      else if (chosen.size < sheetLimit) chosen.add(sticker.id);
      button.setAttribute('aria-pressed', String(chosen.has(sticker.id)));
      remake();
    });
    return button;
  }));
}

async function download(response, name) {
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new Error(body?.error?.message ?? `${response.status} ${response.statusText}`);
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Opens the sheet with every sticker of the library on it, or, given a collage, with that
 * collage's stickers as they look on it (outline, shadow, effect).
 */
export async function openSheet(collage = null) {
  collageID = collage;
  document.getElementById('sheet-suggestion').hidden = true;
  if (collage) {
    stickers = [];
    chosen = new Set();
    document.getElementById('sheet-stickers').replaceChildren();
    dialog.showModal();
    remake();
    return;
  }
  try {
    stickers = await api.stickers();
  } catch (error) {
    setStatus(`Cannot list the stickers: ${error.message}`, 'error');
    return;
  }
  // A sheet holds at most a hundred: the newest are chosen first.
  chosen = new Set(stickers.slice(0, sheetLimit).map((sticker) => sticker.id));
  drawChoices();
  dialog.showModal();
  remake();
  if (stickers.length > sheetLimit) toast(`A sheet holds at most ${sheetLimit} stickers: the newest are on it`, 'info');
}

// A slider dragged asks once it rests, not at every step: each sheet is real work for the server.
form.addEventListener('input', () => {
  form.elements.sizeValue.value = `${form.elements.size.value} mm`;
  clearTimeout(debounce);
  debounce = setTimeout(remake, 250);
});
form.addEventListener('submit', (event) => event.preventDefault());
document.getElementById('sheet-close').addEventListener('click', () => dialog.close());
document.getElementById('sheet-pdf').addEventListener('click', async () => {
  if (!sheet) return;
  try {
    await download(await api.sheetFile(sheet.pdf), 'sticker-sheet.pdf');
    toast('Sticker sheet saved: print it at 100 % (no "fit to page")', 'success');
  } catch (error) {
    toast(`The PDF failed: ${error.message}`, 'error');
  }
});
document.getElementById('sheet-svg').addEventListener('click', async () => {
  if (!sheet) return;
  try {
    for (let page = 1; page <= sheet.pages; page += 1) {
      await download(await api.sheetFile(`${sheet.svg}?page=${page}`), `sticker-sheet-cut-page-${page}.svg`);
    }
  } catch (error) {
    toast(`The cut lines failed: ${error.message}`, 'error');
  }
});
