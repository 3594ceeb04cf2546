// Two tabs on one collage: whether edits made on an older version can go on top of a newer one.

const itemOps = new Set(['removeItem', 'moveItem', 'resizeItem', 'rotateItem', 'setCrop', 'setStickerStyle']);
const styleFields = ['background', 'spacing', 'padding', 'cornerRadius'];

/** What each edit reads or changes, as keys ("item:ID", "style:spacing", "order", "layout", "title"). */
function touched(edit, base) {
  if (itemOps.has(edit.op)) return [`item:${edit.id}`];
  switch (edit.op) {
    case 'addItem': return [];
    case 'reorder': return [`item:${edit.id}`, 'order'];
    case 'swapContents': return [`item:${edit.first}`, `item:${edit.second}`];
    case 'placeInSlot': return [`item:${edit.id}`, 'layout'];
    case 'applyTemplate': case 'setAspect': return ['layout'];
    case 'rename': return ['title'];
    case 'setStyle': return styleFields.filter((field) => edit.style[field] !== base.style[field]).map((field) => `style:${field}`);
    default: return ['everything'];
  }
}

/** Which of those keys the other tab changed between `base` and `current`. */
function changed(key, base, current) {
  const [kind, name] = key.split(':');
  const item = (collage, id) => JSON.stringify(collage.items.find((candidate) => candidate.id === id) ?? null);
  switch (kind) {
    case 'item': return item(base, name) !== item(current, name);
    case 'style': return base.style[name] !== current.style[name];
    case 'order': return base.items.map((i) => i.id).join() !== current.items.map((i) => i.id).join();
    case 'layout':
      return base.template !== current.template || base.canvas.width !== current.canvas.width
        || base.canvas.height !== current.canvas.height;
    case 'title': return base.title !== current.title;
    default: return true;
  }
}

/** What a key names, for the message: "photo 2", "the spacing", … */
function describe(key, base) {
  const [kind, name] = key.split(':');
  if (kind === 'item') {
    const index = base.items.findIndex((item) => item.id === name);
    return `${base.items[index]?.content.type ?? 'item'} ${index + 1}`;
  }
  if (kind === 'style') return `the ${name === 'cornerRadius' ? 'corners' : name}`;
  return { order: 'the stacking order', layout: 'the layout', title: 'the title' }[kind] ?? 'the collage';
}

/**
 * Edits made on `base` can go on top of `current` when nothing they touch changed between the
 * two. Style edits are rebased: only the fields this tab changed are sent, the rest are the
 * other tab's. Returns `{ok, edits}` or `{ok: false, reason}` naming what both changed.
 */
export function mergeable(edits, base, current) {
  for (const edit of edits) {
    const clash = touched(edit, base).find((key) => changed(key, base, current));
    if (clash) return { ok: false, reason: `Both windows changed ${describe(clash, base)}.` };
  }
  const rebased = edits.map((edit) => {
    if (edit.op !== 'setStyle') return edit;
    const mine = Object.fromEntries(styleFields.filter((field) => edit.style[field] !== base.style[field]).map((field) => [field, edit.style[field]]));
    return { op: 'setStyle', style: { ...current.style, ...mine } };
  });
  return { ok: true, edits: rebased };
}
