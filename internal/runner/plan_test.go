package runner

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/scenario"
)

// TestEveryParameterIsRecorded (issue 37): each field of scenario.Params
// has its place in results.Plan (paramsRecorded), and a run's plan built
// with every parameter set records each one: a parameter added without a
// place in results.json fails here.
func TestEveryParameterIsRecorded(t *testing.T) {
	var p scenario.Params
	v := reflect.ValueOf(&p).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(time.Second))
		case reflect.Float64:
			f.SetFloat(0.05)
		case reflect.Slice:
			s := reflect.MakeSlice(f.Type(), 1, 1)
			switch e := s.Index(0); e.Kind() {
			case reflect.String:
				e.SetString("x")
			case reflect.Struct: // a secondary index: its zero value is one
			default:
				e.SetInt(1)
			}
			f.Set(s)
		case reflect.Map:
			f.Set(reflect.ValueOf(map[string]string{"x": "y"}))
		}
	}
	p.PartitionBy = keys.Partitioning{Every: time.Hour}
	spec, err := keys.Parse("bigint")
	if err != nil {
		t.Fatal(err)
	}
	// A window of transactions records no duration: a place counts when
	// either plan, in transactions or in time, fills it.
	inTxns := planOf(Config{Plan: &scenario.Experiment{Scenario: &scenario.Scenario{}, Params: p, Specs: []*keys.Spec{spec}}})
	p.Txns = 0
	inTime := planOf(Config{Plan: &scenario.Experiment{Scenario: &scenario.Scenario{}, Params: p, Specs: []*keys.Spec{spec}}})
	a, b := reflect.ValueOf(inTxns), reflect.ValueOf(inTime)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		place, ok := paramsRecorded[name]
		switch {
		case !ok:
			t.Errorf("scenario.Params.%s has no place in results.Plan (paramsRecorded)", name)
		case strings.HasPrefix(place, "-"):
		case !a.FieldByName(place).IsValid():
			t.Errorf("scenario.Params.%s: results.Plan has no field %s", name, place)
		case a.FieldByName(place).IsZero() && b.FieldByName(place).IsZero():
			t.Errorf("scenario.Params.%s is set, results.Plan.%s is not", name, place)
		}
	}
	for name := range paramsRecorded {
		if _, ok := v.Type().FieldByName(name); !ok {
			t.Errorf("paramsRecorded names %s, which scenario.Params no longer has", name)
		}
	}
}
