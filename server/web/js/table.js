// A sortable, filterable table: click a header to sort (again to reverse), type to filter rows by any
// column's text. Cells are built by each column's `cell(row)`; sorting uses its `value(row)`.
import {el, clear} from './dom.js';

export function dataTable(columns, rows, {filterPlaceholder = 'filter', initialSort = null, rowClass = null} = {}) {
  let sortKey = initialSort?.key ?? null;
  let descending = initialSort?.descending ?? false;
  let filter = '';
  const tbody = el('tbody');
  const count = el('span', {class: 'muted'});
  const headers = columns.map((c) =>
    el('th', {class: c.numeric ? 'num sortable' : 'sortable', title: 'sort', onclick: () => {
      descending = sortKey === c.key ? !descending : Boolean(c.numeric);
      sortKey = c.key;
      render();
    }}, c.label));
  const text = (row) => columns.map((c) => String(c.value(row) ?? '')).join(' ').toLowerCase();

  function render() {
    const column = columns.find((c) => c.key === sortKey);
    let shown = rows.filter((r) => !filter || text(r).includes(filter));
    if (column) {
      shown = [...shown].sort((a, b) => {
        const x = column.value(a), y = column.value(b);
        const missing = (v) => v === null || v === undefined || (typeof v === 'number' && !Number.isFinite(v));
        if (missing(x) || missing(y)) return missing(x) - missing(y);  // blanks last either way
        const order = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
        return descending ? -order : order;
      });
    }
    headers.forEach((h, i) => h.setAttribute('aria-sort', columns[i].key === sortKey ? (descending ? 'descending' : 'ascending') : 'none'));
    clear(tbody);
    for (const r of shown)
      tbody.append(el('tr', {class: rowClass ? rowClass(r) : null},
        columns.map((c) => el('td', {class: c.numeric ? 'num' : null}, c.cell ? c.cell(r) : c.value(r) ?? '–'))));
    count.textContent = `${shown.length} of ${rows.length}`;
  }
  render();
  const input = el('input', {type: 'search', placeholder: filterPlaceholder, oninput: (e) => {
    filter = e.target.value.trim().toLowerCase();
    render();
  }});
  return el('div', {class: 'table-wrap'},
    el('div', {class: 'table-tools'}, input, ' ', count),
    el('table', {class: 'data'}, el('thead', {}, el('tr', {}, headers)), tbody));
}
