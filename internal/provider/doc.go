// Package provider is the Terraform glue of lbhealth: the provider, its
// resources and data sources, built on terraform-plugin-framework.
//
// It holds no business rule of its own. Validation rules and defaults come
// from package rules (the emulator runs the same ones), the wire format from
// package api, and every API call goes through package client. What lives
// here is the mapping between Terraform values and API objects (the
// expand/flatten helpers of each <noun>_model.go) and the plan-time behaviour
// Terraform needs (defaults, replacement, unknown values).
package provider

//go:generate go run ./internal/genblocks
