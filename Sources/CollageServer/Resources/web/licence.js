// Collage Premium in the page: whether this machine has unlocked the premium layouts, and the
// Unlock sheet that explains them, offers a try on the person's own collage, and takes a key.
import { api } from './api.js';
import { $, layoutPreview } from './ui.js';

/** What the server said about the licence; `licencechange` on window follows every change. */
export const premium = { unlocked: false, licence: null, problem: null };

/** Asks the server; a key added in another tab or on the command line shows up here. */
export async function loadLicence() {
  remember(await api.licence());
}

function remember(status) {
  const was = premium.unlocked;
  premium.unlocked = !!status.unlocked;
  premium.licence = status.licence ?? null;
  premium.problem = status.problem ?? null;
  if (was !== premium.unlocked) window.dispatchEvent(new CustomEvent('licencechange'));
}

/** Whether choosing `template` needs the Unlock sheet first. */
export const isLocked = (template) => !!template?.premium && !premium.unlocked;

/**
 * Opens the Unlock sheet for `template` (or premium as a whole). `templates` are every layout
 * (the premium ones are pictured, drawn in `canvas`'s shape with `photos`); `canTry` offers a
 * preview on the open collage. Resolves to 'unlocked', 'try', or null when closed.
 */
export function offerUnlock({ template = null, templates = [], canvas = { width: 1, height: 1 }, photos = [], canTry = false }) {
  const dialog = $('unlock-dialog');
  const key = $('unlock-key');
  const error = $('unlock-error');
  const submit = $('unlock-submit');
  const premiumLayouts = templates.filter((candidate) => candidate.premium);
  $('unlock-title').textContent = template ? `${template.name} is a Premium layout` : 'Unlock Collage Premium';
  $('unlock-count').textContent = String(premiumLayouts.length);
  $('unlock-layouts').replaceChildren(...premiumLayouts.map((candidate) => {
    const figure = document.createElement('figure');
    figure.classList.toggle('chosen', candidate.id === template?.id);
    const caption = document.createElement('figcaption');
    caption.textContent = candidate.name;
    figure.append(layoutPreview(candidate, canvas, photos), caption);
    return figure;
  }));
  const tryButton = $('unlock-try');
  tryButton.hidden = !(canTry && template);
  tryButton.textContent = template ? `Try ${template.name} on this collage` : '';
  error.hidden = true;
  key.removeAttribute('aria-invalid');
  return new Promise((resolve) => {
    let result = null;
    let checking = false;
    const finish = () => {
      for (const [target, type, handler] of listeners) target.removeEventListener(type, handler);
      if (dialog.open) dialog.close();
      resolve(result);
    };
    const showError = (message) => {
      error.textContent = message;
      error.hidden = false;
      key.setAttribute('aria-invalid', 'true');
      key.focus();
    };
    const onSubmit = async (event) => {
      event.preventDefault();
      const text = key.value.trim();
      if (!text) { showError('Paste your licence key first: one line that starts with “collage1.”'); return; }
      submit.disabled = true;
      checking = true;
      submit.textContent = 'Checking…';
      try {
        remember(await api.addLicence(text));
        key.value = '';
        result = 'unlocked';
        finish();
      } catch (failure) {
        showError(failure.message.charAt(0).toUpperCase() + failure.message.slice(1));
      } finally {
        checking = false;
        submit.disabled = false;
        submit.textContent = 'Unlock';
      }
    };
    // While a key is being checked the sheet stays (Escape, Not now and the backdrop wait):
    // what the check answers decides what happens next.
    const listeners = [
      [dialog, 'close', finish],
      [dialog, 'cancel', (event) => { if (checking) event.preventDefault(); }],
      [dialog, 'click', (event) => { if (event.target === dialog && !checking) finish(); }],
      [$('unlock-form'), 'submit', onSubmit],
      [tryButton, 'click', () => { result = 'try'; finish(); }],
      [$('unlock-cancel'), 'click', () => { if (!checking) finish(); }],
    ];
    for (const [target, type, handler] of listeners) target.addEventListener(type, handler);
    dialog.showModal();
    (tryButton.hidden ? key : tryButton).focus();
  });
}
