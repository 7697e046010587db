//go:build !unix

package dataplane

// descriptorLimit is how many descriptors this process may open: where
// there is no such limit to read, a modest one.
func descriptorLimit() int { return 8192 }
