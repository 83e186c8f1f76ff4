package cli

import (
	"fmt"
	"strings"

	"github.com/shrimp-harness/shrimp/internal/lineedit"
)

// Markdown tables on a terminal. Local models answer comparisons and
// listings with GitHub-style tables ("| Name | Size |", "|---|--:|", one
// line per row); written as they come, their columns are as ragged as the
// cells. The styler writes a table's rows as they stream (a slow model's
// table is not held back), keeps them, and when the table ends draws it
// again in place, aligned: the cursor goes back up over the rows, they are
// erased, and the table is written with its cells padded to their
// column's widest (by the columns each character takes, so CJK text and
// emoji line up), as the delimiter row aligns them, the header bold over
// a rule. Lines that are no table (no delimiter row under the first), a
// table wider than the terminal, taller than it (its top has scrolled
// away), holding a tab, or drawn at another width than now stay as they
// came.

// Column separators: a vertical bar between cells and, under the
// header, a rule crossing it.
const (
	tableBar  = " │ "
	tableRule = "─┼─"
)

// heldTable is a table's rows as written so far.
type heldTable struct {
	rows    []string
	lines   int  // terminal lines they took
	width   int  // the terminal's columns when they were written
	unsized bool // a row's lines cannot be told (a tab): not drawn again
}

// size returns the terminal's columns and lines, 0 and 0 when unknown.
func (s *styler) size() (int, int) {
	if s.termSize == nil {
		return 0, 0
	}
	return s.termSize()
}

// tableLine writes a table's row at the start of rest as it came and
// keeps it; when a table is kept and rest starts a line that is no row,
// it draws the table again, aligned. It returns how much of rest it took,
// 0 for nothing, or -1 when rest is too short to tell.
func (s *styler) tableLine(rest string, out *strings.Builder) int {
	if s.feeding {
		return 0
	}
	row, known := rowStart(rest)
	switch {
	case !known:
		return -1
	case !row:
		if s.table != nil {
			s.redrawTable(out)
		}
		return 0
	}
	width, height := s.size()
	if width <= 0 || height <= 0 {
		return 0 // not a terminal that can be drawn on again: as written
	}
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return -1
	}
	line := rest[:nl]
	if s.table == nil {
		s.table = &heldTable{width: width}
	}
	if s.whole {
		// The text is all there: the table is drawn once, when it ends.
		s.table.rows = append(s.table.rows, line)
		return nl + 1
	}
	var shown strings.Builder
	s.asCame(line+"\n", &shown)
	out.WriteString(shown.String())
	t := s.table
	t.rows = append(t.rows, line)
	t.lines += max(1, (lineedit.Columns(stripStyles(shown.String()))+width-1)/width)
	t.unsized = t.unsized || strings.Contains(line, "\t")
	if t.lines >= height {
		t.unsized = true // its top is scrolling away
		t.rows = nil     // and is not kept
	}
	return nl + 1
}

// asCame writes a table's lines as any line of the answer is written
// (its marks styled), not taken for a table again.
func (s *styler) asCame(lines string, out *strings.Builder) {
	s.feeding = true
	s.feed(lines, out)
	s.feeding = false
}

// stripStyles drops the styles the styler writes (SGR sequences) and the
// line's end: what is left takes columns.
func stripStyles(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\x1b' {
			if j := strings.IndexByte(s[i:], 'm'); j >= 0 {
				i += j
				continue
			}
		}
		if s[i] != '\n' {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// rowStart reports whether a line starting with rest is a table's row
// (up to three spaces, then '|'), known false when rest is only the
// spaces so far.
func rowStart(rest string) (row, known bool) {
	t := strings.TrimLeft(rest, " ")
	switch {
	case len(rest)-len(t) > 3:
		return false, true
	case t == "":
		return false, false
	}
	return t[0] == '|', true
}

// redrawTable draws the table kept again, aligned, over its rows as they
// were written, when it can (see above); the cursor is at the start of
// the line after them.
func (s *styler) redrawTable(out *strings.Builder) {
	t := s.table
	s.table = nil
	width, _ := s.size()
	if t.unsized || width != t.width {
		return
	}
	drawn, ok := renderTable(t.rows, width)
	switch {
	case s.whole && !ok:
		s.asCame(strings.Join(t.rows, "\n")+"\n", out) // not written yet
	case s.whole:
		out.WriteString(drawn)
	case ok:
		fmt.Fprintf(out, "\x1b[%dA\r\x1b[J%s", t.lines, drawn)
	}
}

// cellsOf splits a row into its cells' text: the outer bars dropped, an
// escaped bar (\|) kept as a bar, each cell trimmed.
func cellsOf(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	if strings.HasSuffix(row, "|") && !strings.HasSuffix(row, `\|`) {
		row = row[:len(row)-1]
	}
	var cells []string
	var cell strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cell.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// alignment is a column's, from the delimiter row.
type alignment int

const (
	alignLeft alignment = iota
	alignRight
	alignCentre
)

// delimiters reads a delimiter row (---, :--, --:, :-:) of n columns.
func delimiters(row string, n int) ([]alignment, bool) {
	cells := cellsOf(row)
	if len(cells) != n {
		return nil, false
	}
	aligns := make([]alignment, n)
	for i, c := range cells {
		dashes := strings.Trim(c, ":")
		if dashes == "" || strings.Trim(dashes, "-") != "" || len(c)-len(dashes) > 2 {
			return nil, false
		}
		switch left, right := strings.HasPrefix(c, ":"), strings.HasSuffix(c, ":"); {
		case left && right:
			aligns[i] = alignCentre
		case right:
			aligns[i] = alignRight
		}
	}
	return aligns, true
}

// renderTable lays rows out in columns; false when they are no table or
// it would be wider than width columns (0: no limit).
func renderTable(rows []string, width int) (string, bool) {
	if len(rows) < 2 {
		return "", false
	}
	header := cellsOf(rows[0])
	n := len(header)
	aligns, ok := delimiters(rows[1], n)
	if !ok {
		return "", false
	}
	type cell struct {
		text string // styled, escaped
		cols int
	}
	table := make([][]cell, 0, len(rows)-1)
	widths := make([]int, n)
	for r, row := range append([]string{rows[0]}, rows[2:]...) {
		cells := header
		if r > 0 {
			cells = cellsOf(row)
		}
		line := make([]cell, n)
		for i := range n {
			if i < len(cells) {
				line[i].text, line[i].cols = styleCell(cells[i], r == 0)
			}
			widths[i] = max(widths[i], line[i].cols)
		}
		table = append(table, line)
	}
	total := (n - 1) * lineedit.Columns(tableBar)
	for _, w := range widths {
		total += w
	}
	if width > 0 && total > width {
		return "", false
	}
	var b strings.Builder
	for r, line := range table {
		for i, c := range line {
			if i > 0 {
				b.WriteString(tableBar)
			}
			pad := widths[i] - c.cols
			before := map[alignment]int{alignLeft: 0, alignRight: pad, alignCentre: pad / 2}[aligns[i]]
			b.WriteString(strings.Repeat(" ", before))
			b.WriteString(c.text)
			if i < n-1 || aligns[i] != alignLeft {
				b.WriteString(strings.Repeat(" ", pad-before))
			}
		}
		b.WriteByte('\n')
		if r == 0 {
			for i, w := range widths {
				if i > 0 {
					b.WriteString(tableRule)
				}
				b.WriteString(strings.Repeat("─", w))
			}
			b.WriteByte('\n')
		}
	}
	return b.String(), true
}

// styleCell returns a cell's text as the terminal shows it (escaped,
// **bold** and `code` styled, the marks left out; a header bold) and the
// columns it takes. Styles are written where they change and ended with
// the cell.
func styleCell(text string, header bool) (string, int) {
	var b, plain strings.Builder
	bold, code := false, false
	cur := "" // the style in force
	for i := 0; i < len(text); {
		switch {
		case strings.HasPrefix(text[i:], "**"):
			bold = !bold
			i += 2
			continue
		case text[i] == '`':
			code = !code
			i++
			continue
		}
		j := i + 1
		for text[i] != '*' && j < len(text) && text[j] != '*' && text[j] != '`' {
			j++
		}
		want := ""
		if header || bold {
			want += sgrBold
		}
		if code {
			want += sgrCode
		}
		if want != cur {
			if cur != "" {
				b.WriteString(sgrReset)
			}
			b.WriteString(want)
			cur = want
		}
		e := escaped(text[i:j])
		b.WriteString(e)
		plain.WriteString(e)
		i = j
	}
	if cur != "" {
		b.WriteString(sgrReset)
	}
	return b.String(), lineedit.Columns(plain.String())
}
