import AuditKit
import AuditModel
import AuditReplay
import AuditStorage

/// The page's inline style sheet and script: nothing is loaded from anywhere, fonts included.
extension HTMLPage {
    /// Colours: inputs slate, callbacks blue, vetoes rose, overrides fuchsia, defaults pale; the seven difference
    /// kinds (`d0`…`d6`, in `EventDifference.Kind.allCases` order) purple, pink, amber, teal, brown,
    /// orange and green.
    static let style = """
        :root{--ink:#0f172a;--muted:#64748b;--line:#e2e8f0;--in:#334155;--cb:#3b82f6;--veto:#e11d48;--ovr:#c026d3;\
        --def:#cbd5e1;--d0:#9333ea;--d1:#db2777;--d2:#f59e0b;--d3:#0d9488;--d4:#a16207;--d5:#f97316;--d6:#16a34a}
        *{box-sizing:border-box}
        body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,\
        "Helvetica Neue",Arial,sans-serif;color:var(--ink);background:#f8fafc}
        h1{font-size:22px;margin:0 0 4px}
        h2{font-size:16px;margin:28px 0 8px}
        .sub{margin:2px 0;color:var(--muted)}
        .note{margin:4px 0;color:var(--muted);font-size:13px}
        .figures{display:flex;flex-wrap:wrap;gap:10px;margin-top:14px}
        .figure{background:#fff;border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px}
        .figure b{display:block;font-size:20px}
        .figure span{color:var(--muted);font-size:12px}
        .legend{display:flex;flex-wrap:wrap;gap:6px 16px;margin:6px 0 10px;font-size:13px}
        .legend span{display:inline-flex;align-items:center;gap:6px}
        .sw{display:inline-block;width:14px;height:11px;border-radius:2px}
        .sw.in{background:var(--in)}.sw.cb{background:var(--cb)}.sw.veto{background:var(--veto)}\
        .sw.ovr{background:var(--ovr)}
        .sw.def{background:var(--def);border:1px solid #94a3b8}
        .sw.nest{background:#e0e7ff;border:1px solid #a5b4fc}
        .sw.link{height:0;border-top:1.5px dashed #64748b}
        .sw.d0{background:var(--d0)}.sw.d1{background:var(--d1)}.sw.d2{background:var(--d2)}
        .sw.d3{background:var(--d3)}.sw.d4{background:var(--d4)}.sw.d5{background:var(--d5)}
        .sw.d6{background:var(--d6)}
        .timeline{display:flex;background:#fff;border:1px solid var(--line);border-radius:8px;overflow:hidden}
        .labels{flex:none;border-right:1px solid var(--line)}
        .lanes{overflow-x:auto;flex:1}
        .overview{background:#fff;border:1px solid var(--line);border-radius:8px;padding:10px;margin-bottom:8px;\
        overflow-x:auto}
        svg text{font-size:11px;fill:var(--ink)}
        .wname{font-weight:600;font-size:12px}
        .wkind,.rt{fill:var(--muted);font-size:10px}
        .rt.end{text-anchor:end}
        .side{text-anchor:end;fill:var(--muted);font-size:10px}
        .rl{font-size:10px;font-weight:600}
        .lane.even{fill:#fff}.lane.odd{fill:#f8fafc}
        .tick{stroke:var(--line)}
        .nest{fill:#e0e7ff;stroke:#a5b4fc;stroke-width:.8;opacity:.75}
        .link{stroke:#64748b;stroke-width:1;stroke-dasharray:3 2;opacity:.55}
        .m{stroke:#fff;stroke-width:.5}
        .m:hover{stroke:var(--ink);stroke-width:1.5}
        .m.in{fill:var(--in)}.m.cb{fill:var(--cb)}.m.veto{fill:var(--veto)}.m.ovr{fill:var(--ovr)}.m.def{fill:var(--def);stroke:#94a3b8}
        .m.x0{stroke:var(--d0)}.m.x1{stroke:var(--d1)}.m.x2{stroke:var(--d2)}
        .m.x3{stroke:var(--d3)}.m.x4{stroke:var(--d4)}.m.x5{stroke:var(--d5)}.m.x6{stroke:var(--d6)}
        .m.x0,.m.x1,.m.x2,.m.x3,.m.x4,.m.x5{stroke-width:1.5}
        .band{opacity:.16}
        .d0{fill:var(--d0)}.d1{fill:var(--d1)}.d2{fill:var(--d2)}.d3{fill:var(--d3)}.d4{fill:var(--d4)}.d5{fill:var(--d5)}
        .d6{fill:var(--d6)}
        .drawn{fill:#e0e7ff;opacity:.6}
        .ob{fill:#94a3b8}.ov{fill:var(--veto)}
        table{border-collapse:collapse;background:#fff;border:1px solid var(--line);border-radius:8px;\
        font-size:13px;margin-bottom:6px}
        th,td{padding:5px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top;\
        max-width:560px;overflow-wrap:break-word}
        th{background:#f1f5f9;font-weight:600}
        td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
        tr:hover td{background:#f8fafc}
        a{color:#2563eb;text-decoration:none}
        .chip{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px;white-space:nowrap}
        .chip.d0{background:var(--d0)}.chip.d1{background:var(--d1)}.chip.d2{background:var(--d2)}
        .chip.d3{background:var(--d3)}.chip.d4{background:var(--d4)}.chip.d5{background:var(--d5)}
        .chip.d6{background:var(--d6)}
        .vetoed{color:var(--veto)}.overridden{color:var(--ovr)}
        .none{color:var(--muted)}
        .rate{display:inline-flex;align-items:center;gap:6px}
        .rate i{display:inline-block;height:8px;background:var(--veto);border-radius:2px}
        #tip{position:fixed;z-index:9;max-width:520px;padding:8px 10px;border-radius:6px;background:#0f172a;\
        color:#f8fafc;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;\
        pointer-events:none;box-shadow:0 4px 14px rgba(15,23,42,.3)}
        """

    /// Moves each mark's SVG title into a styled tooltip (as text, never as HTML).
    static let script = """
        (function(){var tip=document.getElementById('tip');
        document.querySelectorAll('svg.tl rect.m > title').forEach(function(t){
        t.parentNode.setAttribute('data-tip',t.textContent);t.remove();});
        document.addEventListener('mousemove',function(e){var m=e.target.closest&&e.target.closest('[data-tip]');
        if(!m){tip.hidden=true;return;}tip.textContent=m.getAttribute('data-tip');tip.hidden=false;
        var x=e.clientX+14,y=e.clientY+14;if(x+tip.offsetWidth>innerWidth)x=e.clientX-tip.offsetWidth-14;
        if(y+tip.offsetHeight>innerHeight)y=e.clientY-tip.offsetHeight-14;
        tip.style.left=x+'px';tip.style.top=y+'px';});})();
        """
}
