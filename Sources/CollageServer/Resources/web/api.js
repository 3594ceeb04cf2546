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
  const response = await fetch(path, options);
  if (response.status === 204) return null;
  const type = response.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await response.json() : await response.blob();
  if (!response.ok) {
    const message = data && data.error ? data.error.message : `${response.status} ${response.statusText}`;
    throw new APIError(response.status, message, data);
  }
  return data;
}

export const api = {
  templates: () => request('GET', '/api/templates'),
  fonts: () => request('GET', '/api/fonts'),
  presets: () => request('GET', '/api/canvas-presets'),
  session: () => request('GET', '/api/session'),
  collages: () => request('GET', '/api/collages'),
  collage: (id) => request('GET', `/api/collages/${encodeURIComponent(id)}`),
  create: (fields) => request('POST', '/api/collages', fields),
  rename: (id, title) => request('PATCH', `/api/collages/${encodeURIComponent(id)}`, { title }),
  duplicate: (id) => request('POST', `/api/collages/${encodeURIComponent(id)}/duplicate`),
  remove: (id, options) => request('DELETE', `/api/collages/${encodeURIComponent(id)}`, undefined, options),
  edit: (id, version, edits) => request('POST', `/api/collages/${encodeURIComponent(id)}/edits`, { version, edits }),
  undo: (id, version) => request('POST', `/api/collages/${encodeURIComponent(id)}/undo`, { version }),
  redo: (id, version) => request('POST', `/api/collages/${encodeURIComponent(id)}/redo`, { version }),
  replace: (id, version, collage) => request('PUT', `/api/collages/${encodeURIComponent(id)}`, { version, collage }),
  arrange: (id, body) => request('POST', `/api/collages/${encodeURIComponent(id)}/arrange`, body),
  preview: (id, edits) => request('POST', `/api/collages/${encodeURIComponent(id)}/preview`, { edits }),
  licence: () => request('GET', '/api/licence'),
  addLicence: (key) => request('POST', '/api/licence', { key }),
  photos: () => request('GET', '/api/photos'),
  lift: (photoID, body, signal) => request('POST', `/api/photos/${encodeURIComponent(photoID)}/stickers`, body, { signal }),
  stickers: () => request('GET', '/api/stickers'),
  sheet: (body, signal) => request('POST', '/api/sheets', body, { signal }),
  /** A sheet's PDF or SVG (its work is bounded, and it needs the token). */
  sheetFile: (path) => fetch(path, { headers: { 'X-Collage-Token': token } }),
  exportSize: (id, params) => request('GET', `/api/collages/${encodeURIComponent(id)}/export-size?${new URLSearchParams(params)}`),
  /** A sticker or text item as the renderer draws it (its work is bounded, and it needs the token). */
  drawnItem: (id, item, params) => fetch(
    `/api/collages/${encodeURIComponent(id)}/items/${encodeURIComponent(item)}/drawn?${new URLSearchParams(params)}`,
    { headers: { 'X-Collage-Token': token } }),
  exportURL: (id, params) => `/api/collages/${encodeURIComponent(id)}/export?${new URLSearchParams(params)}`,
  /** Starts an export; it needs the page's token, so a page on another site cannot start one. */
  download: (id, params) => fetch(api.exportURL(id, params), { headers: { 'X-Collage-Token': token } }),

  /** Uploads files as one multipart request, reporting progress (0…1) as it goes. */
  upload(files, onProgress) {
    return new Promise((resolve, reject) => {
      const form = new FormData();
      for (const file of files) form.append('photos', file, file.name);
      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/api/photos');
      xhr.setRequestHeader('X-Collage-Token', token);
      xhr.upload.onprogress = (event) => { if (event.lengthComputable) onProgress(event.loaded / event.total); };
      xhr.onload = () => {
        let data = null;
        try { data = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
        if (xhr.status >= 200 && xhr.status < 300) resolve(data);
        else if (xhr.status === 422 && data) resolve(data);
        else reject(new APIError(xhr.status, data && data.error ? data.error.message : 'upload failed', data));
      };
      xhr.onerror = () => reject(new APIError(0, 'the upload was interrupted'));
      xhr.send(form);
    });
  },
};

/** Shows a short message in the header; `kind` is '' or 'error'. */
export function setStatus(text, kind = '') {
  const status = document.getElementById('status');
  status.textContent = text;
  status.className = `status ${kind}`;
}
