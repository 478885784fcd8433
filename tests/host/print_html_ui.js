// SPDX-License-Identifier: GPL-2.0
// host/print_html's user: appended to a copy of the report of
// tests/data/exp/html.gen, it hovers, clicks, zooms, pans and selects
// with synthetic mouse events, as a user would, and writes one line per
// check ("ok: ..." or "FAIL: ...") into a pre element, id ui-test.
'use strict';
(async function () {
	const out = [];
	const $ = (id) => document.getElementById(id);
	const check = (cond, what, got) => out.push((cond ? 'ok: ' : 'FAIL: ') + what + (cond ? '' : ' (got ' + got + ')'));
	// headless Chromium's --dump-dom ran no animation frame for this page
	// (under --virtual-time-budget): the page's redraws run on a timer here
	window.requestAnimationFrame = (f) => setTimeout(() => f(performance.now()), 0);
	const frame = () => new Promise((r) => setTimeout(r, 10));
	const unit = { s: 1e9, ms: 1e6, us: 1e3, ns: 1 };
	// the timeline's view, from "A .. B (C shown)"
	function view() {
		const m = $('tl-range').textContent.match(/^(\S+) (\S+) \.\. (\S+) (\S+)/);
		return [m[1] * unit[m[2]], m[3] * unit[m[4]]];
	}
	const tl = $('tl-canvas');
	// where time t (ns) of thread tid's row is on the screen
	function at(tid, t) {
		const b = tl.getBoundingClientRect(), [v0, v1] = view();
		const l = document.querySelector('#tl-labels [data-tid="' + tid + '"]').getBoundingClientRect();
		return { clientX: Math.round(b.left + (t - v0) / (v1 - v0) * b.width), clientY: Math.round(l.top + l.height / 2) };
	}
	// the time at screen x (a mouse event's clientX is a whole number)
	function timeAt(x) {
		const b = tl.getBoundingClientRect(), [v0, v1] = view();
		return v0 + (x - b.left) / b.width * (v1 - v0);
	}
	const mouse = (el, type, p, more) => el.dispatchEvent(new MouseEvent(type, Object.assign({ bubbles: true, cancelable: true }, p, more || {})));
	try {
		await frame();
		let v = view();
		check(v[0] === 0 && v[1] === 1e9, 'the timeline shows the whole run, 0 to 1 s', v);

		// hover: server at 605 ms is in System CPU in E, called by C, B, main
		mouse(tl, 'mousemove', at(500, 605e6));
		let tip = $('tip').textContent;
		check(/System CPU for 10\.000 ms \(600\.000 ms \.\. 610\.000 ms\)/.test(tip), 'hover: the state and its interval', tip);
		check(/stack:\n  E\n  C\n  B\n  main$/.test(tip), 'hover: the stack, leaf first', tip);
		check(/^server \(pid 500, tid 500\)\nat 60[45]\.\d+ ms/.test(tip), 'hover: the thread and the time', tip);
		// ... worker at 600 ms is asleep in B
		mouse(tl, 'mousemove', at(501, 600e6));
		tip = $('tip').textContent;
		check(/Sleep for 380\.000 ms/.test(tip) && /stack:\n  B\n  main$/.test(tip), 'hover: worker asleep in B', tip);

		// a click: the leaf function, with its callers and callees
		const p = at(500, 605e6);
		mouse(tl, 'mousedown', p);
		mouse(tl, 'mouseup', p);
		check(/\* E/.test($('cc-body').textContent), 'click on the timeline: E in callers and callees', $('cc-body').textContent.slice(0, 80));

		// wheel: zoom in around the pointer, which stays at its time
		const t0 = timeAt(p.clientX);
		tl.dispatchEvent(new WheelEvent('wheel', Object.assign({ bubbles: true, cancelable: true, deltaY: -600 }, p)));
		await frame();
		v = view();
		check(v[1] - v[0] < 0.5e9 && v[0] < 605e6 && v[1] > 605e6, 'wheel: zoomed in around the pointer', v);
		check(Math.abs(timeAt(p.clientX) - t0) < 1e3, 'wheel: the time under the pointer stays under it', timeAt(p.clientX) + ' vs ' + t0);

		// drag 100 px to the right: earlier times come into view
		const w0 = view(), px = (w0[1] - w0[0]) / tl.getBoundingClientRect().width;
		mouse(tl, 'mousedown', p);
		mouse(tl, 'mousemove', { clientX: p.clientX + 100, clientY: p.clientY });
		mouse(tl, 'mouseup', { clientX: p.clientX + 100, clientY: p.clientY });
		await frame();
		v = view();
		check(Math.abs(w0[0] - v[0] - 100 * px) < 2 * px && Math.abs((v[1] - v[0]) - (w0[1] - w0[0])) < px,
			'drag: panned by 100 px, the span kept', w0 + ' -> ' + v);

		// double-click: the whole run again; shift+drag: a range for the flame graph
		mouse(tl, 'dblclick', p);
		await frame();
		v = view();
		check(v[0] === 0 && v[1] === 1e9, 'double-click: the whole run', v);
		const a = at(500, 500e6), b = at(500, 700e6);
		mouse(tl, 'mousedown', a, { shiftKey: true });
		mouse(tl, 'mousemove', b, { shiftKey: true });
		mouse(tl, 'mouseup', b, { shiftKey: true });
		const r = $('fg-range').textContent.match(/time range (\S+) ms \.\. (\S+) ms/);
		check(r && Math.abs(r[1] - 500) < 2 && Math.abs(r[2] - 700) < 2, 'shift+drag: the flame graph of 500 to 700 ms', $('fg-range').textContent);

		// the flame graph: hover and click a frame (row 1: main of seed_example, on the left)
		const fg = $('fg-canvas'), fb = fg.getBoundingClientRect();
		const q = { clientX: fb.left + 5, clientY: fb.top + 18 * 1.5 };
		mouse(fg, 'mousemove', q);
		tip = $('tip').textContent;
		const mv = tip.match(/^main \[seed_example\.bin\]\nTotal Thread Time: (\S+) s\n(\S+)% of all$/);
		check(mv && Math.abs(mv[1] - 0.4) < 0.004 && Math.abs(mv[2] - 66.67) < 0.5,
			'flame graph hover: main has 0.400 s, 66.67% of the range (to a pixel)', tip);
		mouse(fg, 'click', q);
		check(/\* main/.test($('cc-body').textContent), 'flame graph click: main in callers and callees', $('cc-body').textContent.slice(0, 80));
		// zoomed to main: "all" above it is no share of main, main is all of itself
		mouse(fg, 'mousemove', { clientX: fb.left + 5, clientY: fb.top + 18 * 0.5 });
		tip = $('tip').textContent;
		check(/^all\n/.test(tip) && !/zoomed/.test(tip) && !/(\d+)\.\d+%/.test(tip.replace(/100\.00%/, '')),
			'zoomed: the frame above it gives its share of all alone, never over 100%', tip);
		mouse(fg, 'mousemove', q);
		tip = $('tip').textContent;
		check(/100\.00% of the zoomed frame$/.test(tip), 'zoomed: the zoomed frame is 100% of itself', tip);
		$('fg-clear').click();
		check($('fg-range').textContent === 'the whole run', 'whole run: the range cleared', $('fg-range').textContent);

		// the table: sort by a column, then click a row
		const th = [...document.querySelectorAll('#fn-table th')].find((e) => /^Incl\. Total Thread \(s\)/.test(e.textContent));
		th.click();
		const rows = [...document.querySelectorAll('#fn-table tbody tr[data-f]')].map((e) => e.children[0].textContent + ' ' + e.children[3].textContent);
		check(rows.slice(0, 3).join(',') === 'main 1.870,C 1.490,B 1.170', 'sort by inclusive time', rows.slice(0, 3));
		th.click();
		const last = document.querySelector('#fn-table tbody tr[data-f] td').textContent;
		check(last === 'E', 'sort again: ascending, E (0.600 s) first', last);
		document.querySelector('#fn-table tbody tr[data-f="' + [...document.querySelectorAll('#fn-table tbody tr[data-f]')]
			.find((e) => e.children[0].textContent === 'B').getAttribute('data-f') + '"]').click();
		check(/\* B/.test($('cc-body').textContent) && /C/.test($('cc-body').textContent), 'a row clicked: B with its callee C', $('cc-body').textContent.slice(0, 80));

		// the functions table scrolled to its right end: its last column
		// whole, not under the vertical scrollbar, its numbers not cut
		const wrap = $('fn-table-wrap');
		wrap.style.maxHeight = '120px';	// both scrollbars, as with many functions
		await frame();
		wrap.scrollLeft = wrap.scrollWidth;
		await frame();
		const wb = wrap.getBoundingClientRect(), row1 = document.querySelector('#fn-table tbody tr[data-f]');
		const ltd = row1.children[row1.children.length - 1], edge = wb.left + wrap.clientWidth + 0.5;
		check(ltd.getBoundingClientRect().right <= edge && ltd.scrollWidth <= ltd.clientWidth,
			'functions table: the last column whole at the right end', ltd.getBoundingClientRect().right + ' > ' + edge);
		wrap.scrollLeft = 0;
		wrap.style.maxHeight = '';

		// a process's label: its threads folded into its row, and back
		const h0 = tl.getBoundingClientRect().height, plab = document.querySelector('#tl-labels [data-pid="500"]');
		const rh = document.querySelector('#tl-labels [data-tid="500"]').getBoundingClientRect().height;
		plab.click();
		await frame();
		const h1 = tl.getBoundingClientRect().height;
		check(Math.abs(h0 - h1 - 2 * rh) < 0.5 && getComputedStyle(document.querySelector('#tl-labels [data-tid="501"]')).display === 'none',
			'a process folded: its two thread rows gone, one row for both', h0 + ' -> ' + h1);
		// its row at 150 ms: server ran in user code then (green), drawn in the process's row
		const pb = plab.getBoundingClientRect(), cb = tl.getBoundingClientRect();
		const pix = tl.getContext('2d').getImageData(Math.round((cb.left + 150e6 / 1e9 * cb.width - cb.left) * devicePixelRatio),
			Math.round((pb.top + pb.height / 2 - cb.top) * devicePixelRatio), 1, 1).data;
		check(pix[0] === 0x2e && pix[1] === 0x9d && pix[2] === 0x48, 'the folded row shows its threads\' states (User CPU at 150 ms)', Array.from(pix));
		plab.click();
		await frame();
		check(tl.getBoundingClientRect().height === h0, 'unfolded: the rows back', tl.getBoundingClientRect().height);

		// the links in the header: a section's title below the sticky header
		document.querySelector('header a[href="#functions"]').click();
		await frame();
		const ht = document.querySelector('#functions h2').getBoundingClientRect().top, hb = $('top').getBoundingClientRect().bottom;
		check(ht >= hb - 0.5 && window.scrollY > 0, 'a link: the section\'s title below the sticky header', ht + ' < ' + hb);
	} catch (e) {
		out.push('FAIL: ' + (e && e.stack ? e.stack : e));
	}
	const pre = document.createElement('pre');
	pre.id = 'ui-test';
	pre.textContent = out.join('\n');
	document.body.appendChild(pre);
})();
