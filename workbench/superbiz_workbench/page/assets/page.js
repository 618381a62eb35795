/* The run page's behaviour: a citation opens the output it points at and highlights the
   rows its fact was drawn from; each metric is drawn with uPlot, with the alarm's
   threshold, the onset and the changes marked. Reads only #run-data (JSON); writes text
   and classes, never HTML. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("run-data").textContent);

  function within(path, prefix) {
    return path === prefix || path.indexOf(prefix + ".") === 0 || path.indexOf(prefix + "[") === 0;
  }

  function openCitation(key) {
    var cite = data.citations[key];
    var block = cite && document.getElementById("out-" + cite.invocation_id);
    if (!block) return false;
    document.querySelectorAll(".ln.hit, .ln.fact-hit").forEach(function (el) {
      el.classList.remove("hit", "fact-hit");
    });
    block.open = true;
    var first = null;
    block.querySelectorAll(".ln").forEach(function (line) {
      var path = line.getAttribute("data-path");
      if (cite.paths.some(function (p) { return within(path, p); })) {
        line.classList.add("hit");
        first = first || line;
      } else if (cite.fact_path && within(path, cite.fact_path)) {
        line.classList.add("fact-hit");
      }
    });
    block.setAttribute("data-cited", key);
    var target = first || block.querySelector(".ln.fact-hit") || block;
    target.scrollIntoView({ block: "center" });
    return true;
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a.cite") : null;
    if (link && openCitation(link.getAttribute("data-cite"))) event.preventDefault();
  });

  var COLOURS = { threshold: "#cf222e", onset: "#bc4c00", change: "#8250df" };

  function marksPlugin(marks) {
    return {
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx, box = u.bbox;
          ctx.save();
          ctx.lineWidth = 1.5 * devicePixelRatio;
          marks.forEach(function (m) {
            ctx.strokeStyle = COLOURS[m.kind];
            ctx.setLineDash(m.kind === "threshold" ? [6 * devicePixelRatio, 4 * devicePixelRatio] : []);
            ctx.beginPath();
            if (m.kind === "threshold") {
              var y = u.valToPos(m.value, "y", true);
              ctx.moveTo(box.left, y);
              ctx.lineTo(box.left + box.width, y);
            } else {
              var x = u.valToPos(m.value, "x", true);
              if (x < box.left || x > box.left + box.width) return;
              ctx.moveTo(x, box.top);
              ctx.lineTo(x, box.top + box.height);
            }
            ctx.stroke();
          });
          ctx.restore();
        }]
      }
    };
  }

  function draw(chart) {
    var el = document.getElementById(chart.id);
    if (!el || typeof uPlot === "undefined") return;
    var thresholds = chart.marks.filter(function (m) { return m.kind === "threshold"; })
      .map(function (m) { return m.value; });
    var opts = {
      width: Math.max(320, Math.min(el.clientWidth || 860, 900)),
      height: 240,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); },
      scales: {
        x: { time: true },
        y: {
          range: function (u, min, max) {
            var lo = Math.min.apply(null, [0, min].concat(thresholds));
            var hi = Math.max.apply(null, [max].concat(thresholds));
            return [lo, hi === lo ? lo + 1 : hi * 1.08];
          }
        }
      },
      series: [
        { label: "time (UTC)" },
        { label: chart.title, stroke: "#0969da", width: 1.5, points: { show: true, size: 4 } }
      ],
      plugins: [marksPlugin(chart.marks)]
    };
    var plot = new uPlot(opts, [chart.x, chart.y], el);
    el.setAttribute("data-drawn-points", String(plot.data[0].length));
  }

  data.charts.forEach(draw);
  document.body.setAttribute("data-ready", "1");
})();
