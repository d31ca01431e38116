package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The header is hand-written and cgo does not see it, so nothing else checks that each
// declaration matches its //export: same name, same parameter count, and at every position
// a type of the same class (pointer-sized, int64, int32, size_t). A reordered or missing
// parameter is an ABI break that compiles on both sides.

func cClass(t string) string {
	t = strings.TrimSpace(strings.ReplaceAll(t, "const", ""))
	switch {
	case strings.Contains(t, "*") && structPointee(t) != "":
		return "ptr:" + structPointee(t)
	case strings.Contains(t, "*") || strings.HasSuffix(t, "]") || t == "tsstore_log_fn" || t == "tsstore_desc_fill":
		return "ptr"
	case t == "int64_t":
		return "i64"
	case t == "int32_t":
		return "i32"
	case t == "size_t":
		return "size"
	case t == "void":
		return "void"
	}
	return "?" + t
}

// structPointee is the struct a C pointer type points at ("tsstore_lookup"), or "" for
// handles and plain types: a struct passed by pointer must be the same struct on both sides.
func structPointee(t string) string {
	base := strings.TrimSpace(strings.TrimRight(t, "* "))
	switch base {
	case "tsstore_store", "tsstore_keys", "tsstore_strings", "tsstore_associations", "tsstore_static_reader", "tsstore_forecast_reader",
		"tsstore_error":
		return ""
	}
	if strings.HasPrefix(base, "tsstore_") && strings.Count(t, "*") == 1 {
		return base
	}
	return ""
}

func goClass(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		if sel, ok := t.X.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "tsstore_") {
			return "ptr:" + sel.Sel.Name
		}
		return "ptr"
	case *ast.SelectorExpr:
		switch t.Sel.Name {
		case "Pointer", "uintptr_t":
			return "ptr"
		case "int64_t":
			return "i64"
		case "int32_t":
			return "i32"
		case "size_t":
			return "size"
		}
		return "?" + t.Sel.Name
	}
	return "?"
}

// headerDecls parses the TSSTORE_API prototypes of include/tsstore.h.
func headerDecls(t *testing.T) map[string][]string {
	b, err := os.ReadFile(filepath.Join("..", "include", "tsstore.h"))
	if err != nil {
		t.Fatal(err)
	}
	text := regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(string(b), "")
	decl := regexp.MustCompile(`(?s)TSSTORE_API\s+([^;(]*?)\b(tsstore_[a-z0-9_]+)\s*\(([^)]*)\)\s*;`)
	param := regexp.MustCompile(`^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*(\[\s*\d*\s*\])?$`)
	out := map[string][]string{}
	for _, m := range decl.FindAllStringSubmatch(text, -1) {
		classes := []string{cClass(m[1])} // the return type first
		for _, p := range strings.Split(m[3], ",") {
			p = strings.TrimSpace(p)
			if p == "void" || p == "" {
				continue
			}
			pm := param.FindStringSubmatch(p)
			typ := pm[1]
			if pm[3] != "" {
				typ += "*"
			}
			classes = append(classes, cClass(typ))
		}
		out[m[2]] = classes
	}
	return out
}

// exportDecls parses the //export functions of this package.
func exportDecls(t *testing.T) map[string][]string {
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	out := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Doc == nil || !slices.ContainsFunc(fn.Doc.List, func(c *ast.Comment) bool {
				return c.Text == "//export "+fn.Name.Name
			}) {
				continue
			}
			ret := "void"
			if fn.Type.Results != nil {
				ret = goClass(fn.Type.Results.List[0].Type)
			}
			classes := []string{ret}
			for _, p := range fn.Type.Params.List {
				n := max(1, len(p.Names))
				for i := 0; i < n; i++ {
					classes = append(classes, goClass(p.Type))
				}
			}
			out[fn.Name.Name] = classes
		}
	}
	return out
}

func TestHeaderMatchesExports(t *testing.T) {
	h, g := headerDecls(t), exportDecls(t)
	if len(h) < 75 {
		t.Fatalf("parsed only %d declarations from tsstore.h", len(h))
	}
	for name, hc := range h {
		gc, ok := g[name]
		if !ok {
			t.Errorf("%s is declared in tsstore.h but not exported", name)
			continue
		}
		if !slices.Equal(hc, gc) {
			t.Errorf("%s: header (return, params…) %v, export %v", name, hc, gc)
		}
	}
	for name := range g {
		if _, ok := h[name]; !ok {
			t.Errorf("%s is exported but not declared in tsstore.h", name)
		}
	}
}

func TestArgCodesAreTheHeaders(t *testing.T) {
	for _, m := range argMismatches() {
		t.Error(m)
	}
}
