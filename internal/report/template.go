package report

import (
	"html/template"
	"strings"
)

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{"figure": figureCell}).Parse(`{{template "head" .}}
<body>
<h1>{{.Title}}</h1>
<p class="status {{.Status}}">status: {{.Status}}{{if .Error}} — {{.Error}}{{end}}</p>

<h2 id="verdict">Verdict</h2>
{{if .Question}}<p class="question"><b>{{.Question}}</b></p>{{end}}
{{if .First}}<div class="first">{{template "doc" .First}}</div>{{end}}
{{if .Cost}}<div class="cost">{{range .Cost}}<p>{{.}}</p>{{end}}</div>{{end}}
{{if .Questions}}{{template "doc" .Questions}}{{end}}
<h3 id="rates">Each key's rate</h3>
{{range .Blocks}}{{if .Title}}<h3 class="task">{{.Title}}</h3>{{end}}
<p>{{.Headline}}</p>
<ol class="verdict">
{{range .Verdicts}}<li style="border-color: {{.Color}}"><span class="key">{{if .Rank}}{{.Rank}}. {{end}}{{.Key}}</span> — <span class="tps">{{.TPS}}</span>, <span class="{{if not .Significant}}noise{{end}}">{{.Versus}}</span>
<span class="why">Why: {{.Why}}.</span></li>
{{end}}</ol>
{{end}}{{range .Notes}}<p class="missing">Note: {{.}}.</p>{{end}}
{{if .Pairs}}<h3 id="pairs">Every pair</h3>
<p class="missing">{{.PairsNote}}; p: adjusted.</p>
{{range .Pairs}}<table class="pairs"><caption>{{.Title}}</caption>
<tr><th>row ÷ column</th>{{range .Keys}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.Key}}</th>{{range .Cells}}<td class="{{if .Significant}}sig{{else}}noise{{end}}">{{.Text}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{end}}

{{if .AtScale}}<h2 id="at-scale">At your scale</h2>
{{template "doc" .AtScale}}{{end}}
<h2 id="charts">Charts</h2>
{{if .ChartsOf}}<p class="missing">The charts draw {{.ChartsOf}}; the summary tables below have every task.</p>{{end}}
{{range .Charts}}<figure>
{{.SVG}}
<figcaption><b>{{.Title}}.</b> {{.Caption}}</figcaption>
</figure>
{{end}}{{if .Missing}}<p class="missing">Not drawn: {{range $i, $m := .Missing}}{{if $i}}; {{end}}{{$m}}{{end}}.</p>{{end}}

<h2 id="summary">Summary tables</h2>
{{template "doc" .Summary}}

<h2 id="environment">Environment</h2>
<table class="env">
{{range .Env}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table>
{{if .DDL}}<h3>Tables, as keybench made them</h3>
{{range .DDL}}<p class="missing">{{index . 0}}</p><pre>{{index . 1}}</pre>
{{end}}{{end}}<h3>Server settings recorded</h3>
<table class="env">
{{range .Settings}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table>

<h2 id="reproduce">Reproduce</h2>
<code class="cmd">{{.Command}}</code>
{{if .Sources}}<h2 id="sources">Write-ups cited</h2>
<ul class="sources">{{range .Sources}}<li><b>{{.ID}}</b>: “{{.Title}}”: {{.What}}.</li>
{{end}}</ul>{{end}}
</body>
</html>
{{define "doc"}}{{range .Blocks}}{{if .Table}}{{$t := .Table}}<div class="fit"><table class="summary{{if ge (len $t.Header) 10}} many{{end}}">
<tr>{{range .Table.Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Table.Rows}}<tr>{{range $i, $v := .}}{{if index $t.Right $i}}<td class="num">{{figure $v}}</td>{{else}}<td>{{$v}}</td>{{end}}{{end}}</tr>
{{end}}</table></div>
{{else}}<p class="missing">{{.Text}}</p>
{{end}}{{end}}{{end}}
{{define "style"}}<style>
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 62em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
.status { color: #555; }
.status.failed, .status.interrupted { color: #b00; font-weight: bold; }
ol.verdict { padding-left: 0; list-style: none; }
div.cost { padding: .4em .8em; border-left: 6px solid #444; background: #f2f5fa; }
div.cost p { margin: .3em 0; }
div.first { padding: .4em .8em; border-left: 6px solid #2a6; background: #f2faf4; margin-bottom: .6em; }
ol.verdict li { margin: .6em 0; padding: .5em .8em; border-left: 6px solid; background: #f7f7f7; }
ol.verdict .key { font-weight: bold; font-size: 1.1em; }
ol.verdict .tps { font-variant-numeric: tabular-nums; }
ol.verdict .noise { color: #777; }
ol.verdict .why { display: block; color: #444; margin-top: .2em; }
figure { margin: 1.5em 0; }
figure svg { width: 100%; height: auto; }
figcaption { color: #555; font-size: .9em; }
pre { background: #f7f7f7; padding: .8em; overflow-x: auto; font-size: .72em; line-height: 1.25; }
table.env { border-collapse: collapse; font-size: .9em; }
table.env td { border-top: 1px solid #eee; padding: .2em .8em .2em 0; vertical-align: top; }
code.cmd { display: block; background: #222; color: #eee; padding: .7em; border-radius: 4px; white-space: pre-wrap; word-break: break-all; }
.missing { color: #777; font-size: .9em; }
table.pairs { border-collapse: collapse; font-size: .82em; margin: .5em 0 1em; font-variant-numeric: tabular-nums; }
table.pairs th, table.pairs td { border: 1px solid #ddd; padding: .25em .5em; text-align: right; }
table.pairs th:first-child { text-align: left; }
table.pairs td.sig { font-weight: bold; background: #eef6ee; }
table.pairs td.noise { color: #777; }
table.summary { border-collapse: collapse; font-size: .82em; margin: .5em 0 .3em; font-variant-numeric: tabular-nums; }
table.summary th, table.summary td { border: 1px solid #ddd; padding: .25em .5em; text-align: left; vertical-align: top; }
table.summary th { background: #f4f4f4; font-weight: 600; }
table.summary td.num { text-align: right; }
table.summary.many { font-size: .72em; }
table.summary td { overflow-wrap: anywhere; }
table.summary td.num, table.summary td:first-child { overflow-wrap: normal; }
div.fit { max-width: 100%; overflow-x: auto; }
</style>{{end}}
{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
{{template "style"}}
</head>{{end}}`))

// figureCell is a figure's cell text with each number kept on one line
// with its unit ("1.30 ms", "17401 tps", "7.8 MiB"): a narrow table breaks
// it elsewhere, before an interval ("17401 tps" / "[16409-22650]") or
// after a comma.
func figureCell(s string) string {
	var b strings.Builder
	prev := rune(0)
	for i, r := range s {
		if r == ' ' && prev >= '0' && prev <= '9' && i+1 < len(s) && (s[i+1] >= 'a' && s[i+1] <= 'z' || s[i+1] >= 'A' && s[i+1] <= 'Z' || s[i+1] == '%') {
			r = '\u00a0'
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}
