package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestToolDescriptionsWhole: no struct tag gives a description in the
// `jsonschema` tag, whose parser ends it at the first comma: for sessions
// the model read fs.edit's old as "the exact text to replace", without
// "spaces and line breaks included; enough of it to occur once", and
// fs.search's path without what it leaves out. Descriptions go in
// `jsonschema_description` (whole); a file that breaks this is named.
func TestToolDescriptionsWhole(t *testing.T) {
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (strings.HasPrefix(name, ".") || name == "build" || name == "frontend" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			field, ok := n.(*ast.Field)
			if !ok || field.Tag == nil {
				return true
			}
			tag, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				return true
			}
			if strings.Contains(reflect.StructTag(tag).Get("jsonschema"), "description=") {
				t.Errorf("%s: a description in the jsonschema tag (%s) is cut at its first comma; give it as jsonschema_description:\"…\"", p, tag)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
