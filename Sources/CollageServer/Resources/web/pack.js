// A messenger sticker pack of the collage's stickers: the server sizes and encodes each within the
// messenger's limits (the same table as `collage pack`) and answers one zip to download.
import { api } from './api.js';
import { $, toast } from './ui.js';

const dialog = $('pack-dialog');
let messengers = null;
let stickerIDs = [];
let messenger = 'whatsapp';
let busy = false;

// How each messenger's moving stickers are written, as people call the formats.
const movingFormats = { webm: 'VP9 WebM video', webp: 'animated WebP', png: 'animated PNG' };

function kilobytes(bytes) {
  // A limit published in binary units (Signal's 300 KiB) is said so, as HOW-TO-ADD.txt says it.
  return bytes >= 1024 * 100 && bytes % 1024 === 0 && bytes % 1000 !== 0 ? `${bytes / 1024} KiB` : `${Math.round(bytes / 1000)} KB`;
}

/** What the chosen messenger takes, and whether this collage's stickers are a count it takes. */
function describe() {
  const rules = messengers?.find((entry) => entry.id === messenger);
  const summary = $('pack-summary');
  for (const button of dialog.querySelectorAll('[data-messenger]')) {
    const chosen = button.dataset.messenger === messenger;
    button.setAttribute('aria-checked', String(chosen));
    button.setAttribute('aria-pressed', String(chosen));
  }
  // The list shows the white stroke the messenger advises, as the pack will have it (its width
  // at the list's size).
  const list = $('pack-list');
  list.classList.toggle('outlined', (rules?.outline ?? 0) > 0);
  if (rules) list.style.setProperty('--pack-outline', `${Math.max(0.75, (rules.outline / rules.side) * 72).toFixed(2)}px`);
  if (!rules) {
    summary.textContent = '';
    return;
  }
  const [least, most] = rules.stickers;
  const count = stickerIDs.length;
  const size = rules.square ? `${rules.side} × ${rules.side}` : `${rules.side} px on the longer side`;
  const motion = $('pack-form').elements.motion.value;
  if (motion && !rules.animated) {
    summary.classList.add('error');
    summary.textContent = `Collage makes no moving stickers for ${rules.name}: choose Still.`;
    $('pack-steps').textContent = rules.steps ?? '';
    $('pack-download').disabled = true;
    return;
  }
  const fits = count >= least && count <= most;
  summary.classList.toggle('error', !fits);
  const moving = rules.animated;
  summary.textContent = fits && motion
    ? `${count} moving sticker${count === 1 ? '' : 's'}: ${movingFormats[moving.format] ?? moving.format}, `
      + `2 s loops, each up to ${kilobytes(moving.maximumBytes)}`
      + (moving.format === 'png' ? ' (fewer colours and frames where a sticker needs them to fit).' : '.')
    : fits
    ? `${count} sticker${count === 1 ? '' : 's'}: ${rules.format.toUpperCase()} ${size}, each up to ${kilobytes(rules.maximumBytes)}`
      + (rules.icon ? `, with the pack's icon.` : '.')
    : `A ${rules.name} pack holds ${least} to ${most} stickers; this collage has ${count}.`
      + (count < least ? ' Lift more subjects, or choose another messenger.' : '');
  $('pack-steps').textContent = (motion ? moving.steps : rules.steps) ?? '';
  $('pack-download').disabled = !fits || busy;
}

async function download() {
  if (busy) return;
  busy = true;
  dialog.setAttribute('aria-busy', 'true');
  $('pack-download').disabled = true;
  const summary = $('pack-summary');
  summary.classList.remove('error');
  summary.textContent = 'Making the pack…';
  const form = $('pack-form');
  const title = form.elements.title.value.trim() || 'My stickers';
  const author = form.elements.author.value.trim();
  try {
    const motion = form.elements.motion.value;
    if (motion) summary.textContent = 'Making the moving stickers (each is drawn and fitted to the limit)…';
    const zip = await api.stickerPack({
      for: messenger, stickers: stickerIDs, title, ...(author ? { author } : {}), ...(motion ? { animate: motion } : {}),
    });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(zip);
    const name = title.replace(/[^A-Za-z0-9_]+/g, '-').replace(/^-+|-+$/g, '') || 'stickers';
    link.download = `${name.slice(0, 64)}-${messenger}.zip`;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    dialog.close();
    toast('Sticker pack downloaded: HOW-TO-ADD.txt inside says how to add it', 'success');
  } catch (error) {
    summary.classList.add('error');
    summary.textContent = error.message;
  } finally {
    busy = false;
    dialog.removeAttribute('aria-busy');
    if (dialog.open) describe();
  }
}

let wired = false;
function wire() {
  if (wired) return;
  wired = true;
  for (const button of dialog.querySelectorAll('[data-messenger]')) {
    button.addEventListener('click', () => { messenger = button.dataset.messenger; describe(); });
  }
  $('pack-close').addEventListener('click', () => dialog.close());
  $('pack-download').addEventListener('click', download);
  $('pack-form').addEventListener('submit', (event) => { event.preventDefault(); download(); });
  $('pack-form').elements.motion.addEventListener('change', describe);
}

/** Opens the pack dialog for the collage's stickers (each library sticker once, in the collage's order). */
export async function openPack(store) {
  wire();
  stickerIDs = [...new Set(store.collage.items
    .filter((item) => item.content.type === 'sticker').map((item) => item.content.ref))];
  $('pack-list').replaceChildren(...stickerIDs.map((id, index) => {
    const entry = document.createElement('li');
    const image = document.createElement('img');
    image.src = `/api/stickers/${encodeURIComponent(id)}/image`;
    image.alt = `Sticker ${index + 1}`;
    entry.append(image);
    return entry;
  }));
  dialog.showModal();
  describe();
  try {
    messengers ??= await api.messengers();
  } catch (error) {
    $('pack-summary').textContent = error.message;
  }
  // The first messenger that takes this many stickers is chosen, rather than a warning at once.
  const count = stickerIDs.length;
  const current = messengers?.find((entry) => entry.id === messenger);
  if (current && !(count >= current.stickers[0] && count <= current.stickers[1])) {
    messenger = messengers.find((entry) => count >= entry.stickers[0] && count <= entry.stickers[1])?.id ?? messenger;
  }
  describe();
}
