// The API client: every change goes through the server, which applies CollageCore edits.
const token = document.querySelector('meta[name="collage-token"]').content;

export class APIError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

async function request(method, path, body, extra = {}) {
  const options = { method, headers: {}, ...extra };
  if (method !== 'GET') options.headers['X-Collage-Token'] = token;
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  // The browser lets only small requests outlive the page (64 kB for all of them at once).
  if (options.keepalive && options.body && new Blob([options.body]).size > 32000) options.keepalive = false;
  const response = await fetch(path, options);
  if (response.status === 401) leaveWhenUnpaired();
  if (response.status === 204) return null;
  const type = response.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await response.json() : await response.blob();
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `${response.status} ${response.statusText}`;
    throw new APIError(response.status, message, data);
  }
  return data;
}

/**
 * A phone whose pairing was revoked on the computer is answered 401 from then on: it goes to the
 * pairing page, which says so, instead of staying on an editor that can no longer save.
 */
function leaveWhenUnpaired() {
  location.replace('/pair?revoked');
}

export const api = {
  templates: () => request('GET', '/api/templates'),
  fonts: () => request('GET', '/api/fonts'),
  presets: () => request('GET', '/api/canvas-presets'),
  filters: () => request('GET', '/api/filters'),
  shapes: () => request('GET', '/api/shapes'),
  session: () => request('GET', '/api/session'),
  collages: () => request('GET', '/api/collages'),
  collage: (id) => request('GET', `/api/collages/${encodeURIComponent(id)}`),
  create: (fields) => request('POST', '/api/collages', fields),
  rename: (id, title, extra = {}) => request('PATCH', `/api/collages/${encodeURIComponent(id)}`, { title }, extra),
  duplicate: (id) => request('POST', `/api/collages/${encodeURIComponent(id)}/duplicate`),
  remove: (id, options) => request('DELETE', `/api/collages/${encodeURIComponent(id)}`, undefined, options),
  // Kept alive: a reload or a closed tab does not cancel the edit that carries the last words typed.
  edit: (id, version, edits) => request('POST', `/api/collages/${encodeURIComponent(id)}/edits`, { version, edits },
    { keepalive: true }),
  undo: (id, version) => request('POST', `/api/collages/${encodeURIComponent(id)}/undo`, { version }),
  redo: (id, version) => request('POST', `/api/collages/${encodeURIComponent(id)}/redo`, { version }),
  replace: (id, version, collage) => request('PUT', `/api/collages/${encodeURIComponent(id)}`, { version, collage }),
  arrange: (id, body) => request('POST', `/api/collages/${encodeURIComponent(id)}/arrange`, body),
  preview: (id, edits) => request('POST', `/api/collages/${encodeURIComponent(id)}/preview`, { edits }),
  newPairingCode: () => request('POST', '/api/pairing-codes'),
  devices: () => request('GET', '/api/devices'),
  revokeDevice: (id) => request('DELETE', `/api/devices/${encodeURIComponent(id)}`),
  licence: () => request('GET', '/api/licence'),
  addLicence: (key) => request('POST', '/api/licence', { key }),
  photos: () => request('GET', '/api/photos'),
  /**
   * The photo under a sticker and around it as far as the refine brush reaches: `{blob, at}`,
   * `at` the sticker's top-left corner in that picture.
   */
  stickerPhoto: async (stickerID) => {
    const response = await fetch(`/api/stickers/${encodeURIComponent(stickerID)}/photo`);
    if (response.status === 401) leaveWhenUnpaired();
    if (!response.ok) {
      const data = await response.json().catch(() => null);
      throw new APIError(response.status, data?.error?.message ?? `${response.status} ${response.statusText}`, data);
    }
    const at = (response.headers.get('X-Collage-Sticker-At') ?? '0,0').split(',').map(Number);
    if (at.length !== 2 || !at.every((value) => Number.isInteger(value) && value >= 0)) {
      throw new Error('the photo under the sticker came without its place; reload the page');
    }
    return { blob: await response.blob(), at };
  },
  refineSticker: (stickerID, strokes) => request('POST', `/api/stickers/${encodeURIComponent(stickerID)}/refine`, { strokes }),
  lift: (photoID, body, signal) => request('POST', `/api/photos/${encodeURIComponent(photoID)}/stickers`, body, { signal }),
  stickers: () => request('GET', '/api/stickers'),
  sheet: (body, signal) => request('POST', '/api/sheets', body, { signal }),
  stickerPack: (body) => request('POST', '/api/sticker-packs', body),
  messengers: () => request('GET', '/api/sticker-packs/messengers'),
  /** A sheet's PDF or SVG (its work is bounded, and it needs the token). */
  sheetFile: (path) => fetch(path, { headers: { 'X-Collage-Token': token } }),
  exportSize: (id, params) => request('GET', `/api/collages/${encodeURIComponent(id)}/export-size?${new URLSearchParams(params)}`),
  /** A sticker or text item as the renderer draws it (its work is bounded, and it needs the token). */
  drawnItem: (id, item, params) => fetch(
    `/api/collages/${encodeURIComponent(id)}/items/${encodeURIComponent(item)}/drawn?${new URLSearchParams(params)}`,
    { headers: { 'X-Collage-Token': token } }),
  /** A photo's adjustments with the exposure and white balance its pixels ask for (bounded work, with the token). */
  autoAdjustments: (id, item) => request('GET',
    `/api/collages/${encodeURIComponent(id)}/items/${encodeURIComponent(item)}/auto-adjustments`, undefined,
    { headers: { 'X-Collage-Token': token } }),
  drawnBackground: (id, params) => fetch(
    `/api/collages/${encodeURIComponent(id)}/background?${new URLSearchParams(params)}`,
    { headers: { 'X-Collage-Token': token } }),
  downloadVideo: (id, params, signal) => fetch(`/api/collages/${encodeURIComponent(id)}/video?${new URLSearchParams(params)}`,
    { headers: { 'X-Collage-Token': token }, signal }),
  exportURL: (id, params) => `/api/collages/${encodeURIComponent(id)}/export?${new URLSearchParams(params)}`,
  /** Starts an export; it needs the page's token, so a page on another site cannot start one. */
  download: (id, params, signal) => fetch(api.exportURL(id, params), { headers: { 'X-Collage-Token': token }, signal }),

  /**
   * Uploads files in small batches, reporting progress as it goes: `onProgress(fraction, files)`
   * with the whole upload's fraction (0…1) and each file's. A batch cut off by a dropped
   * connection (or refused while the server is busy) is sent again, up to four times: the library
   * keeps one copy of the same bytes, so a retried photo is never a duplicate. Resolves with
   * `{photos, errors}` for all the files; rejects only when nothing could be uploaded.
   */
  async upload(files, onProgress = () => {}) {
    const sizes = files.map((file) => Math.max(1, file.size));
    const total = sizes.reduce((sum, size) => sum + size, 0);
    const sent = sizes.map(() => 0);
    const report = () => onProgress(
      sent.reduce((sum, bytes) => sum + bytes, 0) / total, sent.map((bytes, index) => bytes / sizes[index]));
    const photos = [];
    const errors = [];
    let lastError = null;
    for (const batch of uploadBatches(files)) {
      try {
        const result = await sendWithRetries(batch.map((index) => files[index]), (loaded) => {
          // The files go in order: the bytes sent so far fill them one after another.
          let left = loaded;
          for (const index of batch) {
            sent[index] = Math.min(sizes[index], Math.max(0, left));
            left -= sizes[index];
          }
          report();
        });
        photos.push(...(result.photos ?? []));
        errors.push(...(result.errors ?? []));
      } catch (error) {
        lastError = error;
        for (const index of batch) errors.push({ file: files[index].name, message: error.message });
      }
      for (const index of batch) sent[index] = sizes[index];
      report();
    }
    if (!photos.length && lastError) throw lastError;
    return { photos, errors };
  },
};

/** The files' indices in batches of at most four files and 32 MB (a single larger file goes alone). */
function uploadBatches(files) {
  const batches = [];
  let batch = [];
  let bytes = 0;
  files.forEach((file, index) => {
    if (batch.length && (batch.length === 4 || bytes + file.size > 32 * 1024 * 1024)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(index);
    bytes += file.size;
  });
  if (batch.length) batches.push(batch);
  return batches;
}

/** Whether a failed upload is worth sending again: the connection dropped, or the server was busy. */
const isTransient = (error) => [0, 408, 502, 503, 504].includes(error.status);

async function sendWithRetries(files, onLoaded, attempts = 4) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await sendBatch(files, onLoaded);
    } catch (error) {
      if (attempt >= attempts || !isTransient(error)) throw error;
      onLoaded(0);
      const wait = Math.min(10, error.retryAfter ?? 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  }
}

/** One multipart request, its progress in bytes of the files sent. */
function sendBatch(files, onLoaded) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    for (const file of files) form.append('photos', file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/photos');
    xhr.setRequestHeader('X-Collage-Token', token);
    xhr.upload.onprogress = (event) => {
      // The multipart framing adds a few hundred bytes a file: scale to the files' own bytes.
      const filesBytes = files.reduce((sum, file) => sum + file.size, 0);
      if (event.lengthComputable && event.total > 0) onLoaded((event.loaded / event.total) * filesBytes);
    };
    xhr.onload = () => {
      if (xhr.status === 401) leaveWhenUnpaired();
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) resolve(data);
      else if (xhr.status === 422 && data) resolve(data);
      else {
        const error = new APIError(xhr.status, data && data.error ? data.error.message : 'upload failed', data);
        const retryAfter = Number(xhr.getResponseHeader('Retry-After'));
        if (retryAfter > 0) error.retryAfter = retryAfter;
        reject(error);
      }
    };
    xhr.onerror = () => reject(new APIError(0, 'the connection dropped during the upload'));
    xhr.ontimeout = () => reject(new APIError(0, 'the upload timed out'));
    xhr.send(form);
  });
}

/** Shows a short message in the header; `kind` is '' or 'error'. */
export function setStatus(text, kind = '') {
  const status = document.getElementById('status');
  status.textContent = text;
  status.className = `status ${kind}`;
}
