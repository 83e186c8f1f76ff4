package files

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/shrimp-harness/shrimp/internal/textcut"
	"github.com/shrimp-harness/shrimp/internal/textfile"
)

// readLines returns lines of f, a file of the given form, for fs.read's
// offset and limit: from line offset (1 is the first) or, for a negative
// offset, the file's last -offset lines; at most limit lines (0: no
// limit) and maxRead bytes. A note after the text says which lines these
// are and how to read on.
func readLines(ctx context.Context, f *os.File, form textfile.Form, offset, limit int) (string, error) {
	if offset < 0 {
		return readLast(ctx, f, form, -offset, limit)
	}
	offset = max(offset, 1)
	r := bufio.NewReaderSize(form.Reader(f), 64<<10)
	for line, reads := 1, 0; line < offset; reads++ {
		if reads%4096 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		b, err := r.ReadSlice('\n')
		switch {
		case err == nil:
			line++
		case errors.Is(err, bufio.ErrBufferFull): // the same line goes on
		case errors.Is(err, io.EOF):
			if len(b) == 0 {
				line-- // the file ended with a newline: no line after it
			}
			return "", fmt.Errorf("the file has %d lines; offset %d is past its end (a negative offset reads its last lines)", line, offset)
		default:
			return "", err
		}
	}
	var out bytes.Buffer
	n := 0 // lines read
	for limit <= 0 || n < limit {
		if n%4096 == 0 && ctx.Err() != nil {
			return "", ctx.Err()
		}
		b, err := nextLine(r, maxRead-out.Len())
		if out.Len()+len(b) > maxRead {
			if n == 0 { // one line longer than all fs.read returns
				return fmt.Sprintf("%s\n[line %d is longer than %d bytes: only its start was read]", b[:textcut.Before(b, maxRead)], offset, maxRead), nil
			}
			break
		}
		if len(b) > 0 {
			out.Write(b)
			n++
		}
		if errors.Is(err, io.EOF) {
			if n == 0 {
				return "", fmt.Errorf("the file has %d lines; offset %d is past its end (a negative offset reads its last lines)", offset-1, offset)
			}
			return fmt.Sprintf("%s\n[lines %d–%d: the end of the file]", bytes.TrimSuffix(out.Bytes(), []byte("\n")), offset, offset+n-1), nil
		}
		if err != nil {
			return "", err
		}
	}
	if _, err := r.Peek(1); errors.Is(err, io.EOF) {
		return fmt.Sprintf("%s\n[lines %d–%d: the end of the file]", bytes.TrimSuffix(out.Bytes(), []byte("\n")), offset, offset+n-1), nil
	}
	return fmt.Sprintf("%s\n[lines %d–%d; more follows: fs.read with offset %d]", bytes.TrimSuffix(out.Bytes(), []byte("\n")), offset, offset+n-1, offset+n), nil
}

// nextLine reads a line (with its newline) from r, keeping at most max+1
// bytes of it: of a longer line (minified code, a one-line dump of a
// gigabyte) the rest is left unread rather than held in memory.
func nextLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		b, err := r.ReadSlice('\n')
		line = append(line, b[:min(len(b), max+1-len(line))]...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
		if len(line) > max {
			return line, nil
		}
	}
}

// readLast returns the last count lines of f, a file of the given form
// (at most limit of them, from the first of those, when limit is set),
// reading back from its end: a log of gigabytes is not read whole for its
// last lines.
func readLast(ctx context.Context, f *os.File, form textfile.Form, count, limit int) (string, error) {
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	var buf []byte // the file's last bytes read so far
	at := st.Size()
	if form.Encoding == textfile.UTF16LE || form.Encoding == textfile.UTF16BE {
		at &^= 1 // read from a character's start: two bytes each
	}
	decoded := func() []byte { // what buf reads as
		if form.Plain() {
			return buf
		}
		return []byte(form.Decode(buf))
	}
	for at > 0 && len(buf) < maxRead && bytes.Count(bytes.TrimSuffix(decoded(), []byte("\n")), []byte("\n")) < count {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		step := min(at, 64<<10, int64(maxRead-len(buf)))
		chunk := make([]byte, step)
		if _, err := f.ReadAt(chunk, at-step); err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		at -= step
		buf = append(chunk, buf...)
	}
	lines := bytes.Split(bytes.TrimSuffix(decoded(), []byte("\n")), []byte("\n"))
	whole := at == 0 && len(lines) <= count // (a file of more lines is not shown whole)
	switch {
	case len(lines) > count:
		lines = lines[len(lines)-count:]
	case at > 0:
		lines = lines[1:] // it may be the end of a line that began before
	}
	fromEnd := len(lines)
	if limit > 0 && len(lines) > limit {
		lines = lines[:limit]
	}
	text := string(bytes.Join(lines, []byte("\n")))
	switch {
	case len(lines) < fromEnd:
		return fmt.Sprintf("%s\n[%d of the file's last %d lines, from the first of them]", text, len(lines), fromEnd), nil
	case whole:
		return text + "\n[the whole file]", nil
	case fromEnd < count:
		return fmt.Sprintf("%s\n[its last %d lines: the %d before them are longer than %d bytes together]", text, fromEnd, count-fromEnd, maxRead), nil
	}
	return fmt.Sprintf("%s\n[the file's last %d lines]", text, count), nil
}
