// Builds DOM nodes. Every string becomes a text node: names, commits and labels come from clients and
// must never be parsed as HTML, so nothing here (or anywhere in the dashboard) sets innerHTML.

// el('a', {href: '#/x', class: 'c', onclick: fn}, 'text', child, [more, children])
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'value') node.value = value;
    else if (key === 'checked' || key === 'selected' || key === 'disabled') node[key] = Boolean(value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
}

// A link to a client-given URL only where it is http(s): a job_url of "javascript:..." stays text.
export function safeLink(url, text) {
  return /^https?:\/\//i.test(url || '') ? el('a', {href: url, rel: 'noreferrer noopener', target: '_blank'}, text) : text;
}

// A <select> of [value, label] pairs (or plain values).
export function select(options, current, onchange, attrs = {}) {
  return el('select', {...attrs, onchange: (e) => onchange(e.target.value)},
    options.map((o) => {
      const [value, label] = Array.isArray(o) ? o : [o, o];
      return el('option', {value, selected: String(value) === String(current ?? '')}, label);
    }));
}

export function badge(text, kind) {
  return el('span', {class: `badge badge-${kind}`}, text);
}
