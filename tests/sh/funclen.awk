# Functions whose body spans more than MAX lines: a definition's "{" alone at column 0 up to the
# "}" alone at column 0; the name is taken from the lines before the "{".
/^\{[[:space:]]*$/ { start = FNR; name = prev; next }
/^\}/ && start { n = FNR - start - 1; if (n > MAX) printf "%s:%d: %s: %d lines\n", FILENAME, start, name, n; start = 0; next }
!start { if ($0 ~ /^[A-Za-z_].*\(/) prev = $0; else if ($0 !~ /^[[:space:]]/ && $0 !~ /^$/) prev = prev }
