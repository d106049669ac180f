// Package style holds the tests of the code's own shape (issue 37): no
// function over 80 lines outside tests, and every package's first comment
// saying its one job. It has no code of its own.
package style
