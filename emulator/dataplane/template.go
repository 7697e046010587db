package dataplane

import (
	"regexp"
	"strings"
)

// Path templates, as a route rule's pathTemplateMatch and a URL rewrite's
// pathTemplateRewrite write them: a template is segments after "/", each
// a literal, "*" (one segment), "**" (any number of segments, last only),
// or a variable "{name}" or "{name=*}" (one segment) or "{name=**}" (any
// number, last only). A template matches a whole path; a rewrite names
// the variables the match captured.

// compileTemplate is the regular expression of a path template; nil when
// the template is not one.
func compileTemplate(t string) *regexp.Regexp {
	rest, ok := strings.CutPrefix(t, "/")
	if !ok {
		return nil
	}
	var re strings.Builder
	re.WriteString("^")
	segments := strings.Split(rest, "/")
	for i, seg := range segments {
		name, pattern := seg, seg
		if inner, ok := strings.CutPrefix(seg, "{"); ok {
			inner, ok = strings.CutSuffix(inner, "}")
			if !ok {
				return nil
			}
			name, pattern, _ = strings.Cut(inner, "=")
			if pattern == "" {
				pattern = "*"
			}
			if !validVariable(name) {
				return nil
			}
		} else {
			name = ""
		}
		group := func(expr string) string {
			if name == "" {
				return "(?:" + expr + ")"
			}
			return "(?P<" + name + ">" + expr + ")"
		}
		switch pattern {
		case "**":
			if i != len(segments)-1 {
				return nil
			}
			re.WriteString("(?:/" + group(".*") + ")?")
		case "*":
			re.WriteString("/" + group("[^/]+"))
		default:
			if name != "" || strings.ContainsAny(pattern, "*{}") {
				return nil
			}
			re.WriteString("/" + regexp.QuoteMeta(pattern))
		}
	}
	re.WriteString("$")
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return nil
	}
	return compiled
}

func validVariable(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// captures matches path against a compiled template and returns its
// variables (empty, not nil, when it has none).
func captures(re *regexp.Regexp, path string) (map[string]string, bool) {
	if re == nil {
		return nil, false
	}
	m := re.FindStringSubmatch(path)
	if m == nil {
		return nil, false
	}
	vars := map[string]string{}
	for i, name := range re.SubexpNames() {
		if name != "" {
			vars[name] = m[i]
		}
	}
	return vars, true
}

// expandTemplate writes a pathTemplateRewrite with the variables a match
// captured.
func expandTemplate(t string, vars map[string]string) string {
	var out strings.Builder
	for {
		open := strings.IndexByte(t, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(t[open:], '}')
		if end < 0 {
			break
		}
		out.WriteString(t[:open])
		out.WriteString(vars[t[open+1:open+end]])
		t = t[open+end+1:]
	}
	out.WriteString(t)
	return out.String()
}
