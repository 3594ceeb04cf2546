// The pairing page: sends the one-time code from the link's fragment (which never reaches a
// server log or a Referer) and, once paired, opens the editor. The cookie it gets back is
// HttpOnly: this script never sees the device's secret.

const $ = (id) => document.getElementById(id);

function showFingerprint() {
  const box = $('pair-fingerprint');
  const fingerprint = box.dataset.fingerprint;
  if (!fingerprint || fingerprint.startsWith('{{')) return;
  // In the server's lines, as the computer shows them, to be compared one by one.
  $('pair-fingerprint-text').textContent = fingerprint;
  box.hidden = false;
}

function say(text, isError = false) {
  const status = $('pair-status');
  status.textContent = text;
  status.classList.toggle('error', isError);
}

/** The code in a link (what follows `#`) or the code itself, as typed or pasted. */
function codeIn(text) {
  let value = text.trim();
  if (value.includes('#')) value = value.slice(value.lastIndexOf('#') + 1);
  try {
    value = decodeURIComponent(value);
  } catch {
    // A link mangled on its way: what is there is sent as it is, and refused if wrong.
  }
  return value.trim().toLowerCase();
}

/** Asks for a link or code to be pasted: the one in the address was spent, or there was none. */
function askForCode(message = '') {
  $('pair-code-label').hidden = false;
  $('pair-code').value = '';
  if (message) say(message, true);
  $('pair-code').focus();
}

async function alreadyPaired() {
  try {
    const response = await fetch('/api/session', { headers: { Accept: 'application/json' } });
    return response.ok;
  } catch {
    return false;
  }
}

async function pair(code) {
  const button = $('pair-button');
  button.disabled = true;
  say('Pairing…');
  let response;
  try {
    response = await fetch('/api/pair', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ code }),
    });
  } catch {
    say('Your computer did not answer. Is Collage still running there, and is this device on the same Wi-Fi?', true);
    button.disabled = false;
    return;
  }
  let data = null;
  try { data = await response.json(); } catch { /* not JSON */ }
  button.disabled = false;
  if (response.status === 401) {
    // The code is spent or ran out: sending it again only counts against this device.
    history.replaceState(null, '', '/pair');
    askForCode('This code was already used or has run out. On your computer, choose Pair a phone → New code, then scan it again (or paste its link here).');
    return;
  }
  if (response.status === 429) {
    const minutes = Math.max(1, Math.ceil(Number(response.headers.get('Retry-After') || 600) / 60));
    say(`Too many wrong codes from this device. Wait ${minutes} minute${minutes === 1 ? '' : 's'}, then scan a new code.`, true);
    return;
  }
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `Pairing failed (${response.status}).`;
    say(message.charAt(0).toUpperCase() + message.slice(1), true);
    return;
  }
  say(`Paired as “${data.device.name}”. Opening the editor…`);
  // The code is spent: keep it out of the history, then open the editor.
  history.replaceState(null, '', '/pair');
  location.replace('/');
}

async function start() {
  const revoked = new URLSearchParams(location.search).has('revoked');
  if (!revoked && await alreadyPaired()) {
    $('pair-title').textContent = 'This device is paired';
    $('pair-intro').textContent = 'It can open the Collage editor on your computer.';
    $('pair-form').hidden = true;
    $('pair-hint').hidden = true;
    const open = document.createElement('a');
    open.href = '/';
    open.className = 'primary';
    open.textContent = 'Open the editor';
    $('pair-status').after(open);
    return;
  }
  showFingerprint();
  if (revoked) {
    $('pair-title').textContent = 'Pair this device again';
    $('pair-intro').textContent = 'This device was removed from Collage on your computer, so it can no longer open your photos and collages. To use it again, pair it with a new code.';
  }
  if (!location.hash.slice(1)) $('pair-code-label').hidden = false;
  // A new link opened in this tab changes only the fragment: show the page for it.
  window.addEventListener('hashchange', () => {
    $('pair-code-label').hidden = !!location.hash.slice(1);
    say('');
  });
  $('pair-form').addEventListener('submit', (event) => {
    event.preventDefault();
    // Read now, not when the page opened: a newer link may have replaced the fragment.
    const code = codeIn($('pair-code-label').hidden ? location.hash.slice(1) : $('pair-code').value);
    if (!code) {
      askForCode('Paste the link from your computer, or scan its QR code with the camera.');
      return;
    }
    pair(code);
  });
  // Live only now: a tap before this would have sent the form the browser's own way.
  $('pair-button').disabled = false;
}

start();
