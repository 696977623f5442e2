// skggm-bench results site: sortable tables, and the controls of the study
// page's plotly charts (the charts are plotly's; this only chooses their data).
(function () {
  "use strict";

  // Names, messages and parameters are data: plotly reads some HTML in labels and
  // hover text, so every text from the results is escaped first.
  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;")
      .replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  function cellValue(row, index) {
    var text = row.cells[index] ? row.cells[index].textContent.trim() : "";
    var number = parseFloat(text);
    return /^[-+]?[0-9.]/.test(text) && !isNaN(number) ? number : text.toLowerCase();
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th").forEach(function (header, index) {
      header.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var ascending = header.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
        header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        rows.sort(function (a, b) {
          var x = cellValue(a, index), y = cellValue(b, index);
          if (typeof x !== typeof y) { x = String(x); y = String(y); }
          return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });

  var source = document.getElementById("chart-data");
  if (!source || typeof Plotly === "undefined") { return; }
  var data = JSON.parse(source.textContent);
  var rows = data.rows;
  var state = {metric: 0};
  var panel = document.getElementById("controls");

  function addSelect(key, label, options, onlyOne) {
    var wrapper = document.createElement("label");
    wrapper.textContent = label;
    var element = document.createElement("select");
    element.id = "control-" + key;
    options.forEach(function (text, index) {
      var option = document.createElement("option");
      option.value = String(index);
      option.textContent = text;  // textContent: never parsed as HTML
      element.appendChild(option);
    });
    element.disabled = !!onlyOne;
    element.addEventListener("change", function () {
      state[key] = parseInt(element.value, 10);
      settle(key);
      draw();
    });
    wrapper.appendChild(element);
    panel.appendChild(wrapper);
  }

  addSelect("metric", "metric", data.metrics.map(function (m) { return m.label; }),
            data.metrics.length < 2);
  data.controls.forEach(function (control) {
    state[control.column] = 0;
    addSelect(control.column, control.label, control.levels, control.levels.length < 2);
  });
  addSelect("model", "model class", [data.model], true);

  function matching(skip) {
    var found = [];
    for (var i = 0; i < rows.metric.length; i++) {
      if (rows.metric[i] !== state.metric) { continue; }
      var ok = true;
      for (var c = 0; c < data.controls.length && ok; c++) {
        var column = data.controls[c].column;
        if (column !== skip && rows[column][i] !== state[column]) { ok = false; }
      }
      if (ok) { found.push(i); }
    }
    return found;
  }

  // Not every combination of the controls holds results (a fixed-structure graph
  // has its own density): when the choice holds none, the other controls move to
  // the first combination that does, keeping the one just changed.
  function settle(changed) {
    if (matching(null).length) { return; }
    for (var i = 0; i < rows.metric.length; i++) {
      if (rows.metric[i] !== state.metric) { continue; }
      if (changed && changed !== "metric" && rows[changed][i] !== state[changed]) {
        continue;
      }
      data.controls.forEach(function (control) {
        state[control.column] = rows[control.column][i];
        document.getElementById("control-" + control.column).value =
          String(state[control.column]);
      });
      return;
    }
  }

  function number(value) { return value === null ? "-" : value.toPrecision(3); }

  function hover(i) {
    var metric = data.metrics[state.metric];
    var text = "<b>" + esc(data.learners[rows.learner[i]]) + "</b><br>" +
      "mean rank " + number(rows.rank[i]) + " [" + number(rows.rank_low[i]) + ", " +
      number(rows.rank_high[i]) + "]<br>" + esc(metric.label) + " " +
      number(rows.value[i]) + " [" + number(rows.value_low[i]) + ", " +
      number(rows.value_high[i]) + "]<br>fits finished " + rows.n_ok[i] +
      ", failed " + rows.n_failed[i];
    if (rows.tied_with[i]) { text += "<br>tied with " + esc(rows.tied_with[i]); }
    return text;
  }

  function layout(title, extra) {
    var base = {title: {text: esc(title)}, margin: {l: 180, r: 20, t: 50, b: 50},
                hovermode: "closest", showlegend: false};
    Object.keys(extra).forEach(function (key) { base[key] = extra[key]; });
    return base;
  }

  function nothing(element, title) {
    Plotly.react(element, [], layout(title, {
      annotations: [{text: "no results for this choice", showarrow: false,
                     xref: "paper", yref: "paper", x: 0.5, y: 0.5}],
      xaxis: {visible: false}, yaxis: {visible: false}, height: 200}),
      {displaylogo: false, responsive: true});
  }

  function drawBoard() {
    var element = document.getElementById("leaderboard-chart");
    var metric = data.metrics[state.metric];
    var title = "Mean rank by " + metric.label + " (1 = best), 95% intervals";
    var found = matching(null).filter(function (i) { return rows.rank[i] !== null; });
    if (!found.length) { nothing(element, title); return; }
    found.sort(function (a, b) { return rows.rank[a] - rows.rank[b]; });
    var trace = {
      type: "scatter", mode: "markers",
      x: found.map(function (i) { return rows.rank[i]; }),
      y: found.map(function (i) { return esc(data.learners[rows.learner[i]]); }),
      error_x: {type: "data", symmetric: false,
                array: found.map(function (i) { return rows.rank_high[i] - rows.rank[i]; }),
                arrayminus: found.map(function (i) { return rows.rank[i] - rows.rank_low[i]; })},
      hovertext: found.map(hover), hoverinfo: "text", marker: {size: 10}
    };
    Plotly.react(element, [trace], layout(title, {
      height: 120 + 32 * found.length,
      xaxis: {title: {text: "mean rank"}, zeroline: false},
      yaxis: {type: "category", autorange: "reversed"}
    }), {displaylogo: false, responsive: true});
  }

  function drawShift() {
    var element = document.getElementById("shift-chart");
    var metric = data.metrics[state.metric];
    var generators = data.controls[0].levels;
    var title = "Mean rank by " + metric.label + " under each generator";
    var found = matching("generator");
    var traces = data.learners.map(function (name, learner) {
      var mine = found.filter(function (i) {
        return rows.learner[i] === learner && rows.rank[i] !== null;
      });
      return {
        type: "scatter", mode: "lines+markers", name: esc(name),
        x: mine.map(function (i) { return esc(generators[rows.generator[i]]); }),
        y: mine.map(function (i) { return rows.rank[i]; }),
        error_y: {type: "data", symmetric: false,
                  array: mine.map(function (i) { return rows.rank_high[i] - rows.rank[i]; }),
                  arrayminus: mine.map(function (i) { return rows.rank[i] - rows.rank_low[i]; })},
        hovertext: mine.map(hover), hoverinfo: "text"
      };
    }).filter(function (trace) { return trace.x.length; });
    if (!traces.length) { nothing(element, title); return; }
    Plotly.react(element, traces, layout(title, {
      height: 420, showlegend: true,
      xaxis: {type: "category", title: {text: "generator"}},
      yaxis: {title: {text: "mean rank (1 = best)"}, autorange: "reversed"}
    }), {displaylogo: false, responsive: true});
  }

  function drawCurves() {
    var element = document.getElementById("curves-chart");
    var metric = data.metrics[state.metric];
    var sizes = data.controls.filter(function (c) { return c.column === "n_samples"; })[0];
    var title = metric.label + " against the sample size, mean and 95% interval";
    var found = matching("n_samples");
    var traces = data.learners.map(function (name, learner) {
      var mine = found.filter(function (i) {
        return rows.learner[i] === learner && rows.value[i] !== null;
      });
      mine.sort(function (a, b) { return rows.n_samples[a] - rows.n_samples[b]; });
      return {
        type: "scatter", mode: "lines+markers", name: esc(name),
        x: mine.map(function (i) { return parseFloat(sizes.levels[rows.n_samples[i]]); }),
        y: mine.map(function (i) { return rows.value[i]; }),
        error_y: {type: "data", symmetric: false,
                  array: mine.map(function (i) {
                    return rows.value_high[i] === null ? 0 : rows.value_high[i] - rows.value[i];
                  }),
                  arrayminus: mine.map(function (i) {
                    return rows.value_low[i] === null ? 0 : rows.value[i] - rows.value_low[i];
                  })},
        hovertext: mine.map(hover), hoverinfo: "text"
      };
    }).filter(function (trace) { return trace.x.length; });
    if (!traces.length) { nothing(element, title); return; }
    Plotly.react(element, traces, layout(title, {
      height: 420, showlegend: true, margin: {l: 60, r: 20, t: 50, b: 50},
      xaxis: {type: "log", title: {text: "sample size (n)"},
              tickvals: sizes.levels.map(parseFloat), ticktext: sizes.levels.map(esc)},
      yaxis: {title: {text: esc(metric.label) +
                      (metric.greater_is_better ? " (higher is better)" : " (lower is better)")}}
    }), {displaylogo: false, responsive: true});
  }

  function draw() { drawBoard(); drawShift(); drawCurves(); }

  // The static pictures and notes give way to the interactive charts.
  ["leaderboard-chart", "shift-chart", "curves-chart"].forEach(function (id) {
    document.getElementById(id).textContent = "";
  });
  settle(null);
  draw();
}());
