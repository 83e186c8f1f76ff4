package tool

import (
	"fmt"
	"testing"
)

func TestQuestionParse(t *testing.T) {
	one, nine := 1.0, 9.0
	q := Question{Fields: []Field{
		{Name: "size", Title: "Size", Type: "string", Choices: []string{"s", "m"}},
		{Name: "count", Type: "integer", Required: true, Min: &one, Max: &nine},
		{Name: "price", Type: "number"},
		{Name: "gift", Type: "boolean"},
		{Name: "note", Type: "string", MinLength: 2, MaxLength: 5},
		{Name: "fish", Type: "array", Choices: []string{"tuna", "trout"}, MinItems: 1, MaxItems: 1},
		{Name: "mail", Type: "string", Format: "email"},
		{Name: "born", Type: "string", Format: "date"},
		{Name: "site", Type: "string", Format: "uri"},
	}}
	for _, c := range []struct {
		values map[string]string
		want   string
	}{
		{map[string]string{"count": " 3 "}, "map[count:3]"},
		{map[string]string{"count": "3", "size": "m", "price": "2.5", "gift": "No", "note": "hey"}, "map[count:3 gift:false note:hey price:2.5 size:m]"},
		{map[string]string{"count": ""}, "error: count is required"},
		{map[string]string{"count": "2.5"}, `error: count: "2.5" is not a whole number`},
		{map[string]string{"count": "10"}, "error: count: 10 is outside 1 to 9"},
		{map[string]string{"count": "1", "price": "NaN"}, `error: price: "NaN" is not a number`},
		{map[string]string{"count": "1", "size": "xl"}, "error: Size: choose one of s, m"},
		{map[string]string{"count": "1", "gift": "maybe"}, "error: gift: answer yes or no"},
		{map[string]string{"count": "1", "note": "x"}, "error: note: write at least 2 characters"},
		{map[string]string{"count": "1", "note": "xxxxxx"}, "error: note: write at most 5 characters"},
		{map[string]string{"count": "1", "other": "x"}, `error: there is no field "other"`},
		{map[string]string{"count": "1", "fish": " tuna, tuna ,"}, "map[count:1 fish:[tuna]]"},
		{map[string]string{"count": "1", "fish": "tuna, trout"}, "error: fish: choose at most 1"},
		{map[string]string{"count": "1", "fish": "cod"}, `error: fish: "cod" is not one of tuna, trout`},
		{map[string]string{"count": "1", "mail": "me@example.com", "born": "1990-02-03", "site": "https://example.com"}, "map[born:1990-02-03 count:1 mail:me@example.com site:https://example.com]"},
		{map[string]string{"count": "1", "mail": "me"}, `error: mail: "me" is not an email address`},
		{map[string]string{"count": "1", "born": "3 Feb"}, `error: born: "3 Feb" is not a date written yyyy-mm-dd`},
		{map[string]string{"count": "1", "site": "example"}, `error: site: "example" is not an address (such as https://example.com)`},
	} {
		got, err := q.Parse(c.values)
		s := fmt.Sprint(got)
		if err != nil {
			s = "error: " + err.Error()
		}
		if s != c.want {
			t.Errorf("%v: %s, want %s", c.values, s, c.want)
		}
	}
}
