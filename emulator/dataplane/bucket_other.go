//go:build !unix

package dataplane

// openNonblock is 0 where opening has no such flag; objects are Lstat'ed
// before they are opened all the same.
const openNonblock = 0
