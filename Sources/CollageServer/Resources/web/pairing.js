// Pair a phone: on the computer running Collage, the dialog that shows a one-time pairing code
// as a QR code and a link (with the certificate's fingerprint to compare), and the paired
// devices, each of which can be revoked. Phones and tablets never see it: the server keeps
// pairing to this computer.
import { api } from './api.js';
import { $, ask, toast } from './ui.js';

/** When the shown code stops working; the countdown reads it. */
let expiresAt = 0;
let countdown = null;

function showCountdown() {
  const seconds = Math.max(0, Math.round((expiresAt - Date.now()) / 1000));
  $('pair-expiry').textContent = seconds > 0
    ? `Works once, for ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')} more.`
    : 'This code has expired: press New code.';
}

async function newCode() {
  const code = await api.newPairingCode();
  $('pair-qr').src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(code.qr)}`;
  $('pair-link').textContent = code.link;
  $('pair-link').href = code.link;
  // Eight bytes a line, as the phone's pairing page shows them.
  $('pair-fingerprint').textContent = code.fingerprint
    ? code.fingerprint.match(/.{1,24}/g).map((line) => line.replace(/:$/, '')).join('\n')
    : 'none: plain HTTP (--lan-insecure)';
  expiresAt = Date.parse(code.expires);
  showCountdown();
}

function seen(date) {
  return new Date(date).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

async function showDevices() {
  const { devices } = await api.devices();
  $('pair-none').hidden = devices.length > 0;
  $('pair-devices').replaceChildren(...devices.map((device) => {
    const row = document.createElement('li');
    const text = document.createElement('span');
    text.textContent = device.name;
    const when = document.createElement('span');
    when.className = 'device-seen';
    when.textContent = `Paired ${seen(device.paired)} · last seen ${seen(device.lastSeen)}`;
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
        await showDevices();
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
  button.addEventListener('click', async () => {
    $('pair-on').hidden = !session.homeNetwork;
    $('pair-off').hidden = !!session.homeNetwork;
    dialog.showModal();
    try {
      await Promise.all([session.homeNetwork ? newCode() : null, showDevices()]);
    } catch (error) {
      toast(`Pairing: ${error.message}`, 'error');
    }
    clearInterval(countdown);
    countdown = setInterval(showCountdown, 1000);
  });
  $('pair-new').addEventListener('click', () => newCode().catch((error) => toast(`Pairing: ${error.message}`, 'error')));
  dialog.addEventListener('close', () => clearInterval(countdown));
}
