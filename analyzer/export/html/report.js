// SPDX-License-Identifier: GPL-2.0
// lwprof's html report: reads the JSON in #lwprof-data (written by
// analyzer/export/html.c; its layout is in docs/design/html-report.md) and draws
// the thread timeline, the flame graph, the functions table with callers
// and callees, the header and the statistics.  No library, no network.
'use strict';
(function () {
	const $ = (id) => document.getElementById(id);
	function report(msg) {
		const d = document.createElement('div');
		d.className = 'lwprof-error';
		d.textContent = 'script error: ' + msg;
		$('lwprof-errors').appendChild(d);
		document.body.setAttribute('data-lwprof', 'error');
	}
	window.addEventListener('error', (e) => report(e.message + ' (line ' + e.lineno + ')'));

	const D = JSON.parse($('lwprof-data').textContent);
	const M = D.metrics, NM = M.length;
	// colours per state: LWPROF_MS_* order, then idle
	const SC = ['#2e9d48', '#1f6fd0', '#8e44ad', '#ef6c00', '#f9b825', '#8d6e63',
		'#d32f2f', '#b7c4cc', '#37474f', '#ec407a', '#e6e6e6', '#dadada'];	// 11: outside the search
	// a packet's states laid out in its interval: off-CPU first, user last
	const ORDER = [7, 8, 6, 9, 3, 4, 5, 2, 1, 10, 0];
	const RANK = new Array(16).fill(99);
	ORDER.forEach((s, i) => { RANK[s] = i; });

	function fmtVal(k, raw) {
		const x = raw / M[k].div;
		return M[k].time ? x.toFixed(3) : String(Math.round(x));
	}
	// a metric's unit: seconds, bytes (traced heap and I/O sizes) or events
	function unit(k) { return M[k].time ? 's' : M[k].unit === 'bytes' ? 'bytes' : 'events'; }
	function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + '%' : '-'; }
	function fmtNs(ns) {
		const a = Math.abs(ns);
		if (a === 0) return '0 s';
		if (a >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
		if (a >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
		if (a >= 1e3) return (ns / 1e3).toFixed(3) + ' us';
		return Math.round(ns) + ' ns';
	}
	function esc(s) {
		return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
	}
	function hasData(k) { return k === 0 || D.total[k] > 0; }

	// ---- the call tree and stacks ----
	const T = D.tree, NT = T.p.length;
	const par = Int32Array.from(T.p, (d, i) => (d ? i - d : -1));	// distances back
	// children of each node (NT: the root) as index ranges of kidv
	const kidf = new Int32Array(NT + 2), kidv = new Int32Array(NT);
	for (let i = 0; i < NT; i++) kidf[(par[i] < 0 ? NT : par[i]) + 1]++;
	for (let i = 0; i <= NT; i++) kidf[i + 1] += kidf[i];
	{
		const at = kidf.slice(0, NT + 1);
		for (let i = 0; i < NT; i++) kidv[at[par[i] < 0 ? NT : par[i]]++] = i;
	}
	function kids(n) { return kidv.subarray(kidf[n], kidf[n + 1]); }
	// T.v[k][node]: metric k's inclusive value, its bases' exclusive
	// values summed up the tree (parents come before their children)
	const metricOf = [];
	M.forEach((m, k) => m.bases.forEach((b) => { (metricOf[b] = metricOf[b] || []).push(k); }));
	T.v = M.map(() => new Float64Array(NT));
	for (let j = 0; j < T.x.length;) {
		const n = T.x[j], c = T.x[j + 1];
		for (let q = 0; q < c; q++) {
			const ks = metricOf[T.x[j + 2 + 2 * q]], x = T.x[j + 3 + 2 * q];
			if (ks) for (const k of ks) T.v[k][n] += x;
		}
		j += 2 + 2 * c;
	}
	for (let k = 0; k < NM; k++) {
		const v = T.v[k];
		for (let i = NT - 1; i >= 0; i--) if (par[i] >= 0) v[par[i]] += v[i];
	}
	function fname(n) { return D.funcs[T.f[n]][0]; }
	function stackText(n, max) {
		const out = [];
		for (; n >= 0 && out.length < max; n = par[n]) out.push('  ' + fname(n));
		if (n >= 0) out.push('  ...');
		return out.join('\n');
	}

	// ---- tooltip ----
	const tip = $('tip');
	function showTip(ev, text) {
		tip.textContent = text;
		tip.style.display = 'block';
		const w = tip.offsetWidth, h = tip.offsetHeight;
		let x = ev.clientX + 14, y = ev.clientY + 14;
		if (x + w > window.innerWidth) x = Math.max(0, ev.clientX - w - 14);
		if (y + h > window.innerHeight) y = Math.max(0, ev.clientY - h - 14);
		tip.style.left = x + 'px';
		tip.style.top = y + 'px';
	}
	function hideTip() { tip.style.display = 'none'; }

	// A canvas at the device's resolution: its 2D context in CSS pixels.
	function sizeCanvas(c, h) {
		const r = window.devicePixelRatio || 1, w = c.clientWidth;
		c.style.height = h + 'px';
		c.width = Math.max(1, Math.round(w * r));
		c.height = Math.max(1, Math.round(h * r));
		const g = c.getContext('2d');
		g.setTransform(r, 0, 0, r, 0, 0);
		return { g: g, w: w, h: h };
	}
	// first i in a sorted array with a[i] > x
	function upper(a, n, x) {
		let lo = 0, hi = n;
		while (lo < hi) {
			const m = (lo + hi) >> 1;
			if (a[m] > x) hi = m; else lo = m + 1;
		}
		return lo;
	}

	// ---- the timeline ----
	// Each thread's samples become segments (start, end, state, sample),
	// sorted and disjoint.  A packet's states end at its time, or where a
	// packet of the same time begins (a packet split in two), and never
	// reach back before the thread's previous packet: states that add up
	// to more than that window (clocks of two CPUs) are scaled into it.
	function buildThread(th) {
		const n = th.ts.length, m = th.m, time = new Float64Array(n), mo = new Int32Array(n);
		const lo = new Float64Array(n);	// the previous packet's time (of another time)
		let t = 0, j = 0, nseg = 0;
		for (let i = 0; i < n; i++) {
			t += th.ts[i];
			time[i] = t;
			lo[i] = i === 0 ? -Infinity : time[i - 1] === t ? lo[i - 1] : time[i - 1];
			mo[i] = j;
			nseg += m[j];
			j += m[j] + 1;
		}
		const st = new Float64Array(nseg), en = new Float64Array(nseg);
		const sg = new Uint8Array(nseg), sn = new Int32Array(nseg);
		const ps = [], pn = [];
		let next = Infinity, w = nseg;
		for (let i = n - 1; i >= 0; i--) {
			const k = m[mo[i]], end = Math.min(time[i], next);
			if (k === 1) {	// the common case: one state
				const c = m[mo[i] + 1], s = c % 16, ns = (c - s) / 16;
				w--;
				st[w] = next = Math.max(end - ns, Math.min(lo[i], end));
				en[w] = end;
				sg[w] = s;
				sn[w] = i;
				continue;
			}
			let tot = 0;
			ps.length = pn.length = 0;
			for (let q = 0; q < k; q++) {
				const c = m[mo[i] + 1 + q], s = c % 16, ns = (c - s) / 16;
				let p = ps.length;	// insertion by rank
				ps.push(s); pn.push(ns);
				while (p > 0 && RANK[ps[p - 1]] > RANK[s]) {
					ps[p] = ps[p - 1]; pn[p] = pn[p - 1]; p--;
				}
				ps[p] = s; pn[p] = ns;
				tot += ns;
			}
			const room = Math.max(0, end - lo[i]), f = tot > room ? room / tot : 1;
			let pos = end - tot * f;
			next = pos;
			w -= k;
			for (let q = 0; q < k; q++) {
				st[w + q] = pos;
				pos = q + 1 < k ? pos + pn[q] * f : end;
				en[w + q] = pos;
				sg[w + q] = ps[q];
				sn[w + q] = i;
			}
		}
		return { th: th, n: nseg, st: st, en: en, sg: sg, sn: sn, time: time };
	}

	// TL.thr: every thread's row; TL.procs: the processes, each with its
	// threads, collapsed into one row or not; TL.rows: the rows shown
	// (a process's, then its threads' unless it is collapsed), laid out by
	// tlLayout()
	const TL = { rows: [], thr: [], procs: [], v0: 0, v1: 1, lo: 0, hi: 1, used: new Uint8Array(16),
		byId: {}, msgs: [] };
	// A thread's MPI calls (D.mpi[its page number]: start deltas, lengths,
	// functions), as arrays of starts, ends and functions by start.
	function buildMpi(list) {
		const n = list ? list.length / 3 : 0, st = new Float64Array(n), en = new Float64Array(n), f = new Int32Array(n);
		let t = 0;
		for (let i = 0; i < n; i++) {
			t += list[3 * i];
			st[i] = t;
			en[i] = t + list[3 * i + 1];
			f[i] = list[3 * i + 2];
		}
		return { n: n, st: st, en: en, f: f };
	}
	// more thread rows than this: every process starts collapsed
	const COLLAPSE_AT = 48;
	function timelineInit() {
		const ths = D.threads.filter((th) => th.ts.length > 0).map(buildThread);
		ths.sort((a, b) => a.th.e - b.th.e || a.th.p - b.th.p || a.th.t - b.th.t);
		let lo = Infinity, hi = -Infinity, last = null, P = null;
		const multi = D.exps.length > 1, labels = $('tl-labels');
		const rowH = Math.max(6, Math.min(16, Math.floor(16000 / (ths.length * 1.2 + 1))));
		TL.rowH = rowH;
		for (const r of ths) {
			if (r.n) {
				lo = Math.min(lo, r.st[0]);
				hi = Math.max(hi, r.en[r.n - 1]);
			}
			for (let i = 0; i < r.n; i++) TL.used[r.sg[i]] = 1;
			const key = r.th.e + ':' + r.th.p;
			if (key !== last) {
				last = key;
				const d = document.createElement('div');
				d.className = 'proc';
				d.style.height = d.style.lineHeight = (rowH + 2) + 'px';
				const main = ths.find((q) => q.th.e === r.th.e && q.th.t === r.th.p) || r;
				const rank = D.ranks ? D.ranks[r.th.e - 1] : -1;
				d.textContent = (rank >= 0 ? 'rank ' + rank + ': ' : '') + 'process ' + r.th.p + ' ' +
					main.th.c + (multi ? ' (exp ' + r.th.e + ')' : '');
				d.title = 'click: its threads in one row, or each in its own';
				d.setAttribute('data-pid', r.th.p);
				labels.appendChild(d);
				P = { proc: true, label: d, threads: [], collapsed: ths.length > COLLAPSE_AT, h: rowH + 2 };
				const p = P;
				d.onclick = () => { p.collapsed = !p.collapsed; tlLayout(); tlDraw(); };
				TL.procs.push(P);
			}
			const d = document.createElement('div');
			d.className = 'thr';
			d.style.height = rowH + 'px';
			d.style.lineHeight = rowH + 'px';
			d.textContent = r.th.c + ' ' + r.th.t;
			d.title = 'thread ' + r.th.i + ': pid ' + r.th.p + ', tid ' + r.th.t + ', ' + r.th.n + ' samples';
			d.setAttribute('data-tid', r.th.t);
			r.label = d;
			let ns = 0;	// the thread's time on the timeline (the tests read it)
			for (let i = 0; i < r.n; i++) ns += r.en[i] - r.st[i];
			d.setAttribute('data-ns', ns);
			r.mpi = buildMpi(D.mpi && D.mpi[r.th.i]);
			if (r.mpi.n) {
				d.setAttribute('data-mpi', r.mpi.n);
				d.title += ', ' + r.mpi.n + ' MPI calls';
			}
			TL.byId[r.th.i] = r;
			labels.appendChild(d);
			r.h = rowH;
			P.threads.push(r);
			TL.thr.push(r);
		}
		if (!(hi > lo)) { lo = 0; hi = Math.max(1, D.tspan); }
		TL.lo = lo; TL.hi = hi; TL.v0 = lo; TL.v1 = hi;
		tlLayout();
		const lg = $('tl-legend');
		for (const s of ORDER)
			if (TL.used[s])
				lg.insertAdjacentHTML('beforeend', '<span><i style="background:' + SC[s] + '"></i>' +
					esc(D.states[s].label) + '</span>');
		for (let i = 0; D.msgs && i + 3 < D.msgs.length; i += 4)
			TL.msgs.push([D.msgs[i], D.msgs[i + 1], D.msgs[i + 2], D.msgs[i + 3]]);
		if (TL.thr.some((r) => r.mpi.n))
			lg.insertAdjacentHTML('beforeend', '<span><i style="background:' + MPI_CALL +
				'"></i>MPI call</span>' + (TL.msgs.length ? '<span><i style="background:' +
				MPI_MSG + '"></i>MPI message</span>' : ''));
		if (!ths.length) labels.textContent = 'no samples with microstate times';
	}
	// The rows shown, top to bottom: a collapsed process is one row.
	function tlLayout() {
		let y = 0;
		TL.rows = [];
		for (const P of TL.procs) {
			P.y = y;
			P.label.classList.toggle('collapsed', P.collapsed);
			TL.rows.push(P);
			y += P.h;
			for (const r of P.threads) {
				r.label.style.display = P.collapsed ? 'none' : '';
				if (P.collapsed) continue;
				r.y = y;
				TL.rows.push(r);
				y += r.h;
			}
		}
		TL.height = Math.max(y, 20);
	}

	let tlPending = false;
	function tlDraw() {
		if (tlPending) return;
		tlPending = true;
		requestAnimationFrame(() => { tlPending = false; tlPaint(); });
	}
	// Rows' intervals summed per pixel and per state (each interval's
	// overlap with each pixel), then drawn: a pixel of one state fully
	// covered joins its neighbours of the same in one rectangle; a pixel
	// that holds several states shows each as a band of the row's height
	// in proportion to its time there (the largest band the dominant
	// state), opaque in proportion to how much of the pixel has samples
	// (at least 35%, so that a short burst stays visible).  A collapsed
	// process's row sums its threads'.
	function tlRow(g, list, y, h, W, acc, v0, v1, scale) {
		const hit = TL.hit;
		let pmin = W, pmax = -1;
		for (const r of list) {
			const st = r.st, en = r.en, sg = r.sg, n = r.n, sn = r.sn, ss = r.th.s;
			for (let i = upper(en, n, v0); i < n && st[i] < v1; i++) {
				const x0 = Math.max(0, (st[i] - v0) * scale), x1 = Math.min(W, (en[i] - v0) * scale);
				const q = hit && !(ss[sn[i]] >= 0 && hit[ss[sn[i]]]) ? 11 : sg[i];
				const a = Math.min(W - 1, Math.floor(x0));
				if (a < pmin) pmin = a;
				if (x1 <= a + 1) {	// within one pixel
					acc[a * 12 + q] += Math.max(x1 - x0, 0);
					if (a > pmax) pmax = a;
					continue;
				}
				acc[a * 12 + q] += a + 1 - x0;
				let px = a + 1;
				for (; px + 1 <= x1; px++) acc[px * 12 + q] += 1;
				if (px < W && x1 > px) acc[px * 12 + q] += x1 - px; else px--;
				if (px > pmax) pmax = px;
			}
		}
		let run = -1, rs = 0;	// a run of whole pixels of state run, from rs
		const flush = (end) => {
			if (run >= 0) { g.fillStyle = SC[run]; g.fillRect(rs, y, end - rs, h); }
			run = -1;
		};
		for (let px = pmin; px <= pmax; px++) {
			let sum = 0, ns = 0, one = -1;
			for (let s = 0; s < 12; s++) {
				const v = acc[px * 12 + s];
				if (v > 0) { sum += v; ns++; one = s; }
			}
			if (ns === 1 && sum >= 0.999) {
				if (one !== run) { flush(px); run = one; rs = px; }
				acc[px * 12 + one] = 0;
				continue;
			}
			flush(px);
			if (!ns) continue;
			g.globalAlpha = Math.max(0.35, Math.min(1, sum));
			let top = y;
			for (let k = 0; k <= ORDER.length; k++) {	// off-CPU on top, User CPU below
				const s = k < ORDER.length ? ORDER[k] : 11, v = acc[px * 12 + s];
				if (!(v > 0)) continue;
				acc[px * 12 + s] = 0;
				const bh = v / sum * h;
				g.fillStyle = SC[s];
				g.fillRect(px, top, 1, bh);
				top += bh;
			}
			g.globalAlpha = 1;
		}
		flush(pmax + 1);
	}
	function tlPaint() {
		const c = sizeCanvas($('tl-canvas'), TL.height), g = c.g, W = Math.max(1, Math.floor(c.w));
		const v0 = TL.v0, v1 = TL.v1, scale = c.w / (v1 - v0);
		const acc = new Float64Array(W * 12);
		g.clearRect(0, 0, c.w, c.h);
		for (const r of TL.rows) {
			if (r.proc) {
				g.fillStyle = '#eceff1';
				g.fillRect(0, r.y, c.w, r.h);
				if (r.collapsed) tlRow(g, r.threads, r.y + 1, r.h - 2, W, acc, v0, v1, scale);
				continue;
			}
			tlRow(g, [r], r.y + 1, r.h - 2, W, acc, v0, v1, scale);
		}
		tlMpi(g, c.w, v0, v1, scale);
		tlAxis();
		if (FG.range) {	// the flame graph's time range
			const a = (FG.range[0] - v0) * scale, b = (FG.range[1] - v0) * scale;
			g.fillStyle = 'rgba(255, 193, 7, 0.25)';
			g.fillRect(a, 0, Math.max(1, b - a), c.h);
		}
		$('tl-range').textContent = fmtNs(v0) + ' .. ' + fmtNs(v1) +
			' (' + fmtNs(v1 - v0) + ' shown)';
	}
	// Each shown thread's MPI calls, a bar along its row's foot, and each
	// message between two shown threads, a line from its send's start to
	// the end of the call that received it.
	const MPI_CALL = '#263238', MPI_MSG = 'rgba(211, 47, 47, 0.75)';
	function tlMpi(g, w, v0, v1, scale) {
		const vis = (r) => r && r.y !== undefined && r.label.style.display !== 'none';
		let drawn = 0;
		g.globalAlpha = 1;
		g.fillStyle = MPI_CALL;
		for (const r of TL.thr) {
			const m = r.mpi;
			if (!m.n || !vis(r)) continue;
			const y = r.y + r.h - Math.min(3, r.h / 3);
			for (let i = upper(m.en, m.n, v0); i < m.n && m.st[i] < v1; i++) {
				const x0 = Math.max(0, (m.st[i] - v0) * scale), x1 = Math.min(w, (m.en[i] - v0) * scale);
				g.fillRect(x0, y, Math.max(1, x1 - x0), Math.min(3, r.h / 3));
			}
		}
		g.strokeStyle = MPI_MSG;
		g.lineWidth = 1;
		g.beginPath();
		for (const q of TL.msgs) {
			const a = TL.byId[q[0]], b = TL.byId[q[2]];
			if (!vis(a) || !vis(b) || Math.max(q[1], q[3]) < v0 || Math.min(q[1], q[3]) > v1) continue;
			g.moveTo((q[1] - v0) * scale, a.y + a.h / 2);
			g.lineTo((q[3] - v0) * scale, b.y + b.h / 2);
			drawn++;
		}
		g.stroke();
		$('tl-canvas').setAttribute('data-mpi-messages', drawn);
	}
	function tlAxis() {
		const c = sizeCanvas($('tl-axis'), 22), g = c.g, v0 = TL.v0, v1 = TL.v1;
		const span = v1 - v0, scale = c.w / span;
		let step = Math.pow(10, Math.floor(Math.log10(span / 8)));
		if (span / step > 40) step *= 5; else if (span / step > 16) step *= 2;
		g.clearRect(0, 0, c.w, c.h);
		g.fillStyle = '#555';
		g.strokeStyle = '#999';
		g.font = '10px monospace';
		for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
			const x = (t - v0) * scale;
			g.beginPath();
			g.moveTo(x + 0.5, 14);
			g.lineTo(x + 0.5, 22);
			g.stroke();
			g.fillText(fmtNs(t).replace(/\.(\d*?)0+ /, (m, d) => (d ? '.' + d + ' ' : ' ')), x + 3, 11);	// 1.5 s, 100 ms
		}
	}
	function tlSet(v0, v1) {
		const min = 1000;
		if (v1 - v0 < min) { const m = (v0 + v1) / 2; v0 = m - min / 2; v1 = m + min / 2; }
		TL.v0 = v0; TL.v1 = v1;
		tlDraw();
	}
	function tlZoom(f, at) {
		tlSet(at - (at - TL.v0) * f, at + (TL.v1 - at) * f);
	}
	function tlHit(ev) {
		const c = $('tl-canvas'), b = c.getBoundingClientRect();
		const x = ev.clientX - b.left, y = ev.clientY - b.top;
		const r = TL.rows.find((q) => !q.proc && y >= q.y && y < q.y + q.h);
		const scale = b.width / (TL.v1 - TL.v0), t = TL.v0 + x / scale;
		if (!r) return null;
		let i = upper(r.en, r.n, t);
		if (!(i < r.n && r.st[i] <= t)) {	// a gap: the nearest within 3 px
			const da = i < r.n ? (r.st[i] - t) * scale : Infinity;
			const db = i > 0 ? (t - r.en[i - 1]) * scale : Infinity;
			if (db < da) i--;
			if (Math.min(da, db) > 3) return { r: r, t: t, i: -1 };
		}
		return { r: r, t: t, i: i };
	}
	function timelineEvents() {
		const c = $('tl-canvas');
		let drag = null;
		c.addEventListener('wheel', (ev) => {
			if (ev.shiftKey) return;
			ev.preventDefault();
			const b = c.getBoundingClientRect();
			const at = TL.v0 + (ev.clientX - b.left) / b.width * (TL.v1 - TL.v0);
			tlZoom(Math.exp(ev.deltaY * 0.0015), at);
		}, { passive: false });
		const tAt = (ev) => {
			const b = c.getBoundingClientRect();
			return TL.v0 + (ev.clientX - b.left) / b.width * (TL.v1 - TL.v0);
		};
		c.addEventListener('mousedown', (ev) => {
			drag = { x: ev.clientX, v0: TL.v0, v1: TL.v1, sel: ev.shiftKey ? tAt(ev) : null };
		});
		window.addEventListener('mouseup', (ev) => {
			if (drag && drag.sel !== null) {
				const t = tAt(ev);
				if (Math.abs(ev.clientX - drag.x) > 2) fgRange(Math.min(drag.sel, t), Math.max(drag.sel, t));
			} else if (drag && Math.abs(ev.clientX - drag.x) <= 2 && ev.target === c) {
				// a click: the leaf function there, with its callers and callees
				const h = tlHit(ev), nd = h && h.i >= 0 ? h.r.th.s[h.r.sn[h.i]] : -1;
				if (nd >= 0) ccShow(T.f[nd]);
			}
			drag = null;
		});
		c.addEventListener('mousemove', (ev) => {
			if (drag && drag.sel !== null) {
				const t = tAt(ev);
				FG.range = [Math.min(drag.sel, t), Math.max(drag.sel, t)];
				tlDraw();
				return;
			}
			if (drag) {
				const dt = (ev.clientX - drag.x) / c.clientWidth * (drag.v1 - drag.v0);
				tlSet(drag.v0 - dt, drag.v1 - dt);
				hideTip();
				return;
			}
			const h = tlHit(ev);
			if (!h) { hideTip(); return; }
			const th = h.r.th;
			let s = th.c + ' (pid ' + th.p + ', tid ' + th.t + ')\nat ' + fmtNs(h.t);
			if (h.i < 0) s += '\nno sample here';
			else {
				const r = h.r, i = h.i, smp = r.sn[i];
				s += '\n' + D.states[r.sg[i]].label + ' for ' + fmtNs(r.en[i] - r.st[i]) +
					' (' + fmtNs(r.st[i]) + ' .. ' + fmtNs(r.en[i]) + ')' +
					'\npacket at ' + fmtNs(r.time[smp]) + ', stack:\n' +
					(th.s[smp] >= 0 ? stackText(th.s[smp], 40) : '  <none>');
			}
			showTip(ev, s);
		});
		c.addEventListener('mouseleave', hideTip);
		c.addEventListener('dblclick', () => tlSet(TL.lo, TL.hi));
		$('tl-in').onclick = () => tlZoom(0.5, (TL.v0 + TL.v1) / 2);
		$('tl-out').onclick = () => tlZoom(2, (TL.v0 + TL.v1) / 2);
		$('tl-reset').onclick = () => tlSet(TL.lo, TL.hi);
		$('tl-wrap').addEventListener('scroll', hideTip);
	}

	// ---- the flame graph (icicle: roots on top) ----
	const FG = { k: 0, focus: -1, rects: [], re: null, V: T.v, tot: D.total, range: null };
	// a base's timeline state (its kind AN_B_MSTATE 0 or AN_B_IDLE 3), or -1
	const BST = D.bases.map((b) => (b[0] === 0 ? b[1] : b[0] === 3 ? 10 : -1));
	// The flame graph of a time range [a, b) (ns since tmin) of the
	// timeline: each interval's overlap with it, on its packet's stack, for
	// the metrics made of microstates (a counter's events have no interval).
	function fgRange(a, b) {
		if (!(b > a)) {
			FG.range = null;
			FG.V = T.v;
			FG.tot = D.total;
		} else {
			const ex = new Float64Array(NT * 11);
			for (const r of TL.thr) {
				const s = r.th.s;
				for (let i = upper(r.en, r.n, a); i < r.n && r.st[i] < b; i++) {
					const o = Math.min(b, r.en[i]) - Math.max(a, r.st[i]), nd = s[r.sn[i]];
					if (o > 0 && nd >= 0) ex[nd * 11 + r.sg[i]] += o;
				}
			}
			FG.range = [a, b];
			FG.tot = new Array(NM).fill(0);
			FG.V = M.map((m, k) => {
				if (!m.bases.length || !m.bases.every((q) => BST[q] >= 0)) return null;
				const v = new Float64Array(NT);
				for (let n = 0; n < NT; n++)
					for (const q of m.bases) v[n] += ex[n * 11 + BST[q]];
				for (let n = NT - 1; n >= 0; n--)
					if (par[n] >= 0) v[par[n]] += v[n]; else FG.tot[k] += v[n];
				return v;
			});
		}
		const sel = $('fg-metric');
		for (const o of sel.options) o.disabled = !FG.V[+o.value];
		if (!FG.V[FG.k]) { FG.k = 0; sel.value = '0'; }
		FG.focus = -1;
		$('fg-range').textContent = FG.range ? 'time range ' + fmtNs(a) + ' .. ' + fmtNs(b) + ' (' + fmtNs(b - a) + ')' : 'the whole run';
		$('fg-clear').style.display = FG.range ? '' : 'none';
		fgPaint();
		tlDraw();
	}
	const ROW = 18;
	// warm for user code, cool for the kernel's, grey for <IDLE> and the like
	function hue(f) {
		const name = D.funcs[f][0], kind = D.funcs[f][4];
		let h = 0;
		for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) | 0;
		const u = (h >>> 0) % 1000 / 1000;
		if (kind === 2) return 'hsl(200,8%,' + Math.round(62 + 10 * u) + '%)';
		return 'hsl(' + Math.round((kind === 1 ? 165 : 8) + 42 * u) + ',' + Math.round(kind === 1 ? 45 + 20 * u : 70 + 20 * u) +
			'%,' + Math.round(56 + 10 * u) + '%)';
	}
	function fgVal(n) { return n === NT ? FG.tot[FG.k] : FG.V[FG.k][n]; }
	// The search (a regular expression): the flame graph's frames, and on
	// the timeline the intervals whose stack has a matching function (the
	// others grey); each thread's time in such stacks in its label's
	// data-match-ns.
	function setSearch(text) {
		try { FG.re = text ? new RegExp(text, 'i') : null; } catch (e) { FG.re = null; }
		TL.hit = null;
		if (FG.re) {
			const fh = D.funcs.map((f) => FG.re.test(f[0]));
			TL.hit = new Uint8Array(NT);
			for (let n = 0; n < NT; n++) TL.hit[n] = fh[T.f[n]] || (par[n] >= 0 && TL.hit[par[n]]) ? 1 : 0;
		}
		let all = 0;
		for (const r of TL.thr) {
			let ns = 0;
			if (TL.hit)
				for (let i = 0; i < r.n; i++) {
					const nd = r.th.s[r.sn[i]];
					if (nd >= 0 && TL.hit[nd]) ns += r.en[i] - r.st[i];
				}
			r.label.setAttribute('data-match-ns', ns);
			all += ns;
		}
		$('tl-search').textContent = TL.hit ? 'search: ' + fmtNs(all) + ' of thread time in stacks with a match (' +
			'the rest grey)' : '';
		fgPaint();
		tlDraw();
	}
	function fgMatch(n) { return FG.re && n !== NT && FG.re.test(fname(n)); }
	function fgPaint() {
		const k = FG.k, path = [];
		for (let n = FG.focus; n >= 0; n = par[n]) path.unshift(n);
		path.unshift(NT);	// "all"
		const top = path[path.length - 1], total = fgVal(top);
		const rects = [];
		let depth = path.length;
		// the focus's subtree: children by value, widths by share
		const lay = (n, x, w, d) => {
			rects.push([x, w, d, n]);
			if (d + 1 > depth) depth = d + 1;
			const V = FG.V[k], ch = Array.from(kids(n)).filter((c) => V[c] > 0).sort((a, b) => V[b] - V[a]);
			const v = fgVal(n);
			let cx = x;
			for (const c of ch) {
				const cw = w * V[c] / v;
				if (cw >= 1) lay(c, cx, cw, d + 1);	// narrower: inside its parent's width
				cx += cw;
			}
		};
		const c0 = $('fg-canvas');
		const W = c0.clientWidth;
		for (let i = 0; i < path.length - 1; i++) rects.push([0, W, i, path[i]]);
		if (total > 0) lay(top, 0, W, path.length - 1);
		const c = sizeCanvas(c0, Math.max(3, depth + 1) * ROW), g = c.g;
		g.clearRect(0, 0, c.w, c.h);
		g.font = '11px monospace';
		g.textBaseline = 'middle';
		for (const r of rects) {
			const [x, w, d, n] = r, name = n === NT ? 'all' : fname(n);
			g.fillStyle = fgMatch(n) ? '#e040fb' : n === NT ? '#b0bec5' : d < path.length - 1 ? '#cfd8dc' : hue(T.f[n]);
			g.fillRect(x, d * ROW, Math.max(0.5, w - 0.5), ROW - 1);
			if (w > 24) {
				g.save();
				g.beginPath();
				g.rect(x, d * ROW, w - 2, ROW);
				g.clip();
				g.fillStyle = '#000';
				g.fillText(name, x + 3, d * ROW + ROW / 2);
				g.restore();
			}
		}
		FG.rects = rects;
		FG.total = total;
		FG.depth = path.length - 1;	// the zoomed frame's row
		// the search's share: matching nodes not under a matching node
		if (FG.re) {
			let sum = 0;
			const walk = (n) => {
				if (fgMatch(n)) { sum += fgVal(n); return; }
				for (const ch of kids(n)) if (FG.V[k][ch] > 0) walk(ch);
			};
			walk(top);
			$('fg-match').textContent = 'matched: ' + fmtVal(k, sum) + ' ' + unit(k) + ', ' + pct(sum, total);
		} else {
			$('fg-match').textContent = '';
		}
	}
	function fgHit(ev) {
		const c = $('fg-canvas'), b = c.getBoundingClientRect();
		const x = ev.clientX - b.left, d = Math.floor((ev.clientY - b.top) / ROW);
		return FG.rects.find((r) => r[2] === d && x >= r[0] && x < r[0] + r[1]);
	}
	function flameInit() {
		const sel = $('fg-metric');
		for (let k = 0; k < NM; k++)
			if (hasData(k)) sel.insertAdjacentHTML('beforeend', '<option value="' + k + '">' + esc(M[k].title) + '</option>');
		sel.onchange = () => { FG.k = +sel.value; fgPaint(); };
		$('fg-search').oninput = (ev) => setSearch(ev.target.value);
		$('fg-reset').onclick = () => { FG.focus = -1; fgPaint(); };
		$('fg-clear').onclick = () => fgRange(0, 0);
		const c = $('fg-canvas');
		c.addEventListener('click', (ev) => {
			const r = fgHit(ev);
			if (!r) return;
			FG.focus = r[3] === NT ? -1 : r[3];
			fgPaint();
			if (r[3] !== NT) ccShow(T.f[r[3]]);	// and its callers and callees
		});
		c.addEventListener('mousemove', (ev) => {
			const r = fgHit(ev);
			if (!r) { hideTip(); return; }
			const n = r[3], v = fgVal(n), k = FG.k;
			const name = n === NT ? 'all' : fname(n), obj = n === NT ? '' : ' [' + D.funcs[T.f[n]][1] + ']';
			showTip(ev, name + obj + '\n' + M[k].title + ': ' + fmtVal(k, v) + ' ' + unit(k) +
				'\n' + pct(v, FG.tot[k]) + ' of all' +
				// the zoomed frame's share of its callers above it is not one
				(FG.focus >= 0 && r[2] >= FG.depth ? ', ' + pct(v, FG.total) + ' of the zoomed frame' : ''));
		});
		c.addEventListener('mouseleave', hideTip);
	}

	// ---- the functions table, callers and callees ----
	const FN = { col: 0, desc: true, sel: -1, cols: [] };
	const callersOf = new Map(), calleesOf = new Map();
	function index(edges, map, key) {
		edges.forEach((e, i) => {
			const f = e[key];
			if (!map.has(f)) map.set(f, []);
			map.get(f).push(i);
		});
	}
	function tableInit() {
		const cols = [{ h: 'Name', name: true, get: (f) => D.funcs[f][0] }];
		for (let k = 0; k < NM; k++) {
			if (!hasData(k)) continue;
			const t = M[k].title.replace(/ Time$/, '');
			cols.push({ h: 'Excl. ' + t + ' (' + unit(k) + ')', k: k, fl: 2, get: (f) => D.funcs[f][2][k] });
			if (k === 0) cols.push({ h: 'Excl. ' + t + ' %', k: k, fl: 2, pct: true, get: (f) => D.funcs[f][2][k] });
			cols.push({ h: 'Incl. ' + t + ' (' + unit(k) + ')', k: k, fl: 3, get: (f) => D.funcs[f][3][k] });
			if (k === 0) cols.push({ h: 'Incl. ' + t + ' %', k: k, fl: 3, pct: true, get: (f) => D.funcs[f][3][k] });
		}
		FN.cols = cols;
		FN.col = 1;
		index(D.callers, callersOf, 1);
		index(D.callees, calleesOf, 0);
		$('fn-search').oninput = tableDraw;
		tableDraw();
	}
	function cell(c, v) {
		return c.pct ? pct(v, D.total[c.k]) : fmtVal(c.k, v);
	}
	function tableDraw() {
		const cols = FN.cols, c = cols[FN.col];
		let re = null;
		try { re = $('fn-search').value ? new RegExp($('fn-search').value, 'i') : null; } catch (e) { re = null; }
		let ids = [];
		for (let f = 0; f < D.funcs.length; f++) if (!re || re.test(D.funcs[f][0])) ids.push(f);
		ids.sort((a, b) => {
			const x = c.get(a), y = c.get(b);
			const r = c.name ? (x < y ? -1 : x > y ? 1 : 0) : x - y;
			return (FN.desc ? -r : r) || (D.funcs[a][0] < D.funcs[b][0] ? -1 : 1);
		});
		const n = ids.length, MAX = 500;
		ids = ids.slice(0, MAX);
		let h = '<thead><tr>';
		cols.forEach((q, i) => {
			h += '<th data-c="' + i + '"' + (q.name ? ' class="name"' : '') + '>' + esc(q.h) +
				(i === FN.col ? (FN.desc ? ' &#9660;' : ' &#9650;') : '') + '</th>';
		});
		h += '</tr></thead><tbody><tr class="total"><td class="name">&lt;Total&gt;</td>';
		for (let i = 1; i < cols.length; i++) h += '<td>' + cell(cols[i], D.total[cols[i].k]) + '</td>';
		h += '</tr>';
		for (const f of ids) {
			h += '<tr data-f="' + f + '"' + (f === FN.sel ? ' class="sel"' : '') + '><td class="name" title="' +
				esc(D.funcs[f][0] + ' [' + D.funcs[f][1] + ']') + '">' + esc(D.funcs[f][0]) + '</td>';
			for (let i = 1; i < cols.length; i++) h += '<td>' + cell(cols[i], cols[i].get(f)) + '</td>';
			h += '</tr>';
		}
		const t = $('fn-table');
		t.innerHTML = h + '</tbody>';
		$('fn-count').textContent = n + ' functions' + (n > MAX ? ', the first ' + MAX + ' shown' : '');
		t.querySelectorAll('th').forEach((th) => {
			th.onclick = () => {
				const i = +th.getAttribute('data-c');
				FN.desc = i === FN.col ? !FN.desc : !cols[i].name;
				FN.col = i;
				tableDraw();
			};
		});
		t.querySelectorAll('tbody tr[data-f]').forEach((tr) => {
			tr.onclick = () => ccShow(+tr.getAttribute('data-f'));
		});
	}
	function ccShow(f) {
		FN.sel = f;
		document.querySelectorAll('#fn-table tr.sel').forEach((r) => r.classList.remove('sel'));
		const tr = document.querySelector('#fn-table tr[data-f="' + f + '"]');
		if (tr) tr.classList.add('sel');
		const ks = [];
		for (let k = 0; k < NM; k++) if (hasData(k)) ks.push(k);
		const k0 = FN.cols[FN.col].k === undefined ? 0 : FN.cols[FN.col].k;
		let h = '<table id="cc-table"><thead><tr><th class="name">Name</th>';
		for (const k of ks) h += '<th>Attr. ' + esc(M[k].title.replace(/ Time$/, '')) + ' (' + unit(k) + ')</th>';
		h += '</tr></thead><tbody>';
		const rows = (list, edges, other, mark) => {
			const es = (list || []).map((i) => edges[i]).sort((a, b) => b[2][k0] - a[2][k0]);
			for (const e of es) {
				h += '<tr data-f="' + e[other] + '"><td class="name">' + mark + esc(D.funcs[e[other]][0]) + '</td>';
				for (const k of ks) h += '<td>' + fmtVal(k, e[2][k]) + '</td>';
				h += '</tr>';
			}
		};
		rows(callersOf.get(f), D.callers, 0, '&nbsp;&nbsp;');
		h += '<tr class="self" data-f="' + f + '"><td class="name">* ' + esc(D.funcs[f][0]) + '</td>';
		for (const k of ks) h += '<td>' + fmtVal(k, D.funcs[f][3][k]) + '</td>';
		h += '</tr>';
		rows(calleesOf.get(f), D.callees, 1, '&nbsp;&nbsp;');
		$('cc-body').innerHTML = h + '</tbody></table><p>Callers above, callees below the function (*): ' +
			'what each caller gave it, what each callee took (attributed, sorted by ' + esc(M[k0].title) + ').</p>';
		$('cc-body').querySelectorAll('tr[data-f]').forEach((r) => {
			r.onclick = () => ccShow(+r.getAttribute('data-f'));
		});
	}

	// ---- the page ----
	// The address's #metric=KW&search=RE&range=A,B&fn=NAME: the flame graph's
	// metric, search and time range (ns since the earliest start), the
	// function whose callers and callees are shown.
	function fromHash() {
		const q = new URLSearchParams(location.hash.slice(1));
		const k = M.findIndex((m) => m.kw === q.get('metric'));
		if (k >= 0 && hasData(k)) { FG.k = k; $('fg-metric').value = String(k); }
		if (q.get('search')) {
			$('fg-search').value = q.get('search');
			setSearch(q.get('search'));
		}
		const r = (q.get('range') || '').split(',').map(Number);
		if (r.length === 2 && r[1] > r[0]) fgRange(r[0], r[1]);
		const f = D.funcs.findIndex((x) => x[0] === q.get('fn'));
		if (f >= 0) ccShow(f);
	}

	function init() {
		$('title').textContent = D.title;
		document.title = 'lwprof: ' + D.title;
		let s = D.exps.join(', ') + ': ' + D.samples + ' samples' +
			(D.calls ? ', ' + D.calls + ' traced calls' : '') + ', filter: ' + D.filter;
		for (let k = 0; k < NM; k++)
			if (k === 0 || (M[k].flags & 4)) s += '; ' + M[k].title + ' ' + fmtVal(k, D.total[k]) + ' ' + unit(k);
		$('summary').textContent = s;
		$('header-text').textContent = D.header;
		$('stats-text').textContent = D.stats;
		timelineInit();
		timelineEvents();
		flameInit();
		tableInit();
		fromHash();
		// timings for the benchmark (scripts/bench-html): the first paints,
		// and from the start of the navigation to a page ready for use
		let t0 = performance.now();
		tlPaint();
		document.body.setAttribute('data-timeline-ms', (performance.now() - t0).toFixed(1));
		t0 = performance.now();	// again, the page laid out: what a zoom or pan costs
		tlPaint();
		document.body.setAttribute('data-repaint-ms', (performance.now() - t0).toFixed(1));
		t0 = performance.now();
		fgPaint();
		document.body.setAttribute('data-flame-ms', (performance.now() - t0).toFixed(1));
		document.body.setAttribute('data-load-ms', performance.now().toFixed(0));
		// the sections' titles below the sticky header when a link scrolls to them
		const hdr = () => document.documentElement.style.setProperty('--header-h', $('top').offsetHeight + 'px');
		hdr();
		window.addEventListener('resize', () => { hdr(); tlDraw(); fgPaint(); });
		if (document.body.getAttribute('data-lwprof') !== 'error')
			document.body.setAttribute('data-lwprof', 'ready');
	}
	try {
		init();
	} catch (e) {
		report(e && e.stack ? e.stack : String(e));
	}
})();
