// Pair a phone: on the computer running Collage, the dialog that shows a one-time pairing code
// as a QR code and a link (with the certificate's fingerprint to compare), and the paired
// devices, each of which can be revoked. Phones and tablets never see it: the server keeps
// pairing to this computer.
import { api } from './api.js';
import { $, ask, toast } from './ui.js';

/** When the shown code stops working; the countdown reads it. */
let expiresAt = 0;
let countdown = null;
/** The devices last shown, by id: a new one means the code on screen was just used. */
let shownDevices = null;

function showCountdown() {
  const seconds = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
  $('pair-expiry').textContent = seconds > 0
    ? `Works once, for ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')} more.`
    : 'This code has run out: press New code.';
  // Said aloud once, when it runs out, not every second.
  $('pair-expiry').setAttribute('aria-live', seconds > 0 ? 'off' : 'polite');
}

async function newCode() {
  const code = await api.newPairingCode();
  $('pair-qr').src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(code.qr)}`;
  $('pair-link').textContent = code.link;
  $('pair-link').href = code.link;
  // In the server's lines, as the terminal and the phone's pairing page show them.
  $('pair-fingerprint').textContent = code.fingerprintLines
    ? code.fingerprintLines.join('\n')
    : 'none: plain HTTP (--lan-insecure)';
  expiresAt = Date.parse(code.expires);
  showCountdown();
}

/** "just now", "5 minutes ago", "3 Dec, 14:05": when, as a person says it. */
function seen(date) {
  const minutes = Math.round((Date.now() - new Date(date).getTime()) / 60000);
  if (minutes < 2) return 'just now';
  if (minutes < 60) return `${minutes} minutes ago`;
  return new Date(date).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

async function showDevices(homeNetwork) {
  const { devices } = await api.devices();
  const fresh = shownDevices ? devices.filter((device) => !shownDevices.has(device.id)) : [];
  shownDevices = new Set(devices.map((device) => device.id));
  for (const device of fresh) {
    toast(`${device.name} is paired`, 'success');
  }
  // The code on screen was used: show a fresh one for the next device.
  if (fresh.length && homeNetwork) await newCode();
  $('pair-devices-title').hidden = !homeNetwork && devices.length === 0;
  $('pair-none').hidden = devices.length > 0 || !homeNetwork;
  $('pair-devices').replaceChildren(...devices.map((device) => {
    const row = document.createElement('li');
    const text = document.createElement('span');
    text.textContent = device.name;
    const when = document.createElement('span');
    when.className = 'device-seen';
    when.textContent = `Paired ${seen(device.paired)} · last used ${seen(device.lastSeen)}`;
    text.append(when);
    const revoke = document.createElement('button');
    revoke.type = 'button';
    revoke.textContent = 'Revoke';
    revoke.setAttribute('aria-label', `Revoke ${device.name}`);
    revoke.addEventListener('click', async () => {
      const sure = await ask({
        title: `Revoke ${device.name}?`,
        message: 'It can no longer open this editor. To use it again, pair it again.',
        confirm: 'Revoke',
        danger: true,
      });
      if (!sure) return;
      try {
        await api.revokeDevice(device.id);
        toast(`${device.name} can no longer open the editor`, 'success');
        await showDevices(true);
      } catch (error) {
        toast(`Could not revoke ${device.name}: ${error.message}`, 'error');
      }
    });
    row.append(text, revoke);
    return row;
  }));
}

/** Shows the Pair a phone button on this computer's editor; `session` is GET /api/session's answer. */
export function setUpPairing(session) {
  const button = $('pair-open');
  if (!session.canPair) return;
  button.hidden = false;
  const dialog = $('pair-dialog');
  let watching = null;
  button.addEventListener('click', async () => {
    $('pair-on').hidden = !session.homeNetwork;
    $('pair-off').hidden = !!session.homeNetwork;
    shownDevices = null;
    dialog.showModal();
    try {
      await Promise.all([session.homeNetwork ? newCode() : null, showDevices(session.homeNetwork)]);
    } catch (error) {
      toast(`Pairing: ${error.message}`, 'error');
    }
    clearInterval(countdown);
    countdown = setInterval(showCountdown, 1000);
    // While the code is on screen, a phone that pairs shows up at once.
    clearInterval(watching);
    if (session.homeNetwork) watching = setInterval(() => showDevices(true).catch(() => {}), 2000);
  });
  $('pair-new').addEventListener('click', () => newCode().catch((error) => toast(`Pairing: ${error.message}`, 'error')));
  dialog.addEventListener('close', () => {
    clearInterval(countdown);
    clearInterval(watching);
  });
}
