// Package rules is the one place where the validation rules and defaults of
// the resources live.
//
// The emulator runs them on every write (it is the source of truth) and the
// provider runs the very same functions at plan time, so both say the same
// thing in the same words. A rule reports a Violation whose message names the
// field, the value and the rule. Field names are written in the API's
// camelCase inside the message and rendered by the caller: the emulator shows
// them as the API spells them ("timeoutSec"), the provider as Terraform
// attributes ("timeout_sec"). The provider also uses the fields a message
// names to drop violations about values it cannot know yet at plan time.
package rules
