package results

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// MaxFigure bounds every figure a results file may hold: far above any
// measured one (a petabyte in bytes, a quadrillion rows or transactions),
// far below where the arithmetic of a report or a projection overflows.
const MaxFigure = 1e15

// MaxRatio bounds a figure tagged kb:"ratio", a size over another size
// (a key index over the cache): a petabyte over a megabyte. A share,
// tagged kb:"share" (a leaf density, a hit ratio, a part of a whole), is
// at most 1.
const MaxRatio = 1e9

// bound is what a figure may be: below zero (kb:"signed"), and at most what.
type bound struct {
	signed bool
	max    float64
	what   string
}

var anyFigure = bound{max: MaxFigure, what: "beyond any figure keybench measures"}

// boundOf reads a field's kb tag onto the bound its parent gave.
func boundOf(tag string, parent bound) bound {
	switch tag {
	case "signed":
		parent.signed = true
	case "share":
		return bound{max: 1, what: "a share of a whole, at most 1"}
	case "ratio":
		return bound{max: MaxRatio, what: "beyond any ratio of two sizes keybench measures"}
	}
	return parent
}

// Validate checks every figure of results read from a file: finite, not
// negative (every figure keybench records is a count, a size, a time, a
// rate or a ratio of them, unless its field is tagged kb:"signed"), and at
// most MaxFigure. It names the first figure that is not, by its path in
// the file ("cells[2].metrics.bloat_ratio"): a file edited by hand, or
// damaged, is refused instead of printing NaN rates and negative sizes.
func (r *Results) Validate() error {
	return validateValue(reflect.ValueOf(r).Elem(), "", anyFigure)
}

var (
	rawMessage = reflect.TypeOf(json.RawMessage(nil))
	getter     = "Get"
)

func validateValue(v reflect.Value, path string, signed bound) error {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return checkFigure(v.Float(), path, signed)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return checkFigure(float64(v.Int()), path, signed)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return checkFigure(float64(v.Uint()), path, signed)
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return validateValue(v.Elem(), path, signed)
	case reflect.Slice, reflect.Array:
		if v.Type() == rawMessage || v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := validateValue(v.Index(i), fmt.Sprintf("%s[%d]", path, i), signed); err != nil {
				return err
			}
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if err := validateValue(iter.Value(), join(path, fmt.Sprint(iter.Key().Interface())), signed); err != nil {
				return err
			}
		}
	case reflect.Struct:
		// A figure that may be unavailable (M[T]): its value when measured.
		if m := v.MethodByName(getter); m.IsValid() && m.Type().NumIn() == 0 && m.Type().NumOut() == 2 && m.Type().Out(1).Kind() == reflect.Bool {
			out := m.Call(nil)
			if !out[1].Bool() {
				return nil
			}
			return validateValue(out[0], path, signed)
		}
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := join(path, name)
			if f.Anonymous {
				p = path
			}
			if err := validateValue(v.Field(i), p, boundOf(f.Tag.Get("kb"), signed)); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkFigure(x float64, path string, b bound) error {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return fmt.Errorf("%s is %v, not a number", path, x)
	case x < 0 && !b.signed:
		return fmt.Errorf("%s is %v: a figure keybench measures is never negative", path, x)
	case math.Abs(x) > b.max*(1+1e-9):
		return fmt.Errorf("%s is %g: %s (at most %g)", path, x, b.what, b.max)
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
