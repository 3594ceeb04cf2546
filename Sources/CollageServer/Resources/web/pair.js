// The pairing page: sends the one-time code from the link's fragment (which never reaches a
// server log or a Referer) and, once paired, opens the editor. The cookie it gets back is
// HttpOnly: this script never sees the device's secret.

const $ = (id) => document.getElementById(id);

function showFingerprint() {
  const box = $('pair-fingerprint');
  const fingerprint = box.dataset.fingerprint;
  if (!fingerprint || fingerprint.startsWith('{{')) return;
  // Eight bytes a line, so the four lines can be compared with the computer's one by one.
  $('pair-fingerprint-text').textContent = (fingerprint.match(/.{1,24}/g) || [])
    .map((line) => line.replace(/:$/, '')).join('\n');
  box.hidden = false;
}

function say(text, isError = false) {
  const status = $('pair-status');
  status.textContent = text;
  status.classList.toggle('error', isError);
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
  try {
    const response = await fetch('/api/pair', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ code }),
    });
    let data = null;
    try { data = await response.json(); } catch { /* not JSON */ }
    if (!response.ok) {
      say(data && data.error ? data.error.message : `Pairing failed (${response.status}).`, true);
      button.disabled = false;
      return;
    }
    say(`Paired as “${data.device.name}”. Opening the editor…`);
    // The code is spent: keep it out of the history, then open the editor.
    history.replaceState(null, '', '/pair');
    location.replace('/');
  } catch {
    say('The computer did not answer. Is Collage still running, and is this device on the same Wi-Fi?', true);
    button.disabled = false;
  }
}

async function start() {
  showFingerprint();
  let code = '';
  try {
    code = decodeURIComponent(location.hash.slice(1)).trim();
  } catch {
    // A link mangled on its way: the code can still be typed.
  }
  if (await alreadyPaired()) {
    $('pair-title').textContent = 'This device is paired';
    $('pair-intro').textContent = 'It can open the Collage editor on your computer.';
    $('pair-form').hidden = true;
    const open = document.createElement('a');
    open.href = '/';
    open.className = 'primary';
    open.textContent = 'Open the editor';
    $('pair-status').after(open);
    return;
  }
  if (!code) $('pair-code-label').hidden = false;
  $('pair-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = code || $('pair-code').value.trim();
    if (!typed) {
      say('Type the pairing code, or open the link from your computer.', true);
      return;
    }
    pair(typed);
  });
  // Live only now: a tap before this would have sent the form the browser's own way.
  $('pair-button').disabled = false;
}

start();
