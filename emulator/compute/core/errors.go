package core

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/lbhealth/terraform-provider-lbhealth/emulator/googleapi"
	"github.com/lbhealth/terraform-provider-lbhealth/emulator/store"
	"github.com/lbhealth/terraform-provider-lbhealth/internal/api"
)

// apiError is an error the client caused (or a missing resource): it becomes
// a Google-style error body with its code and reason.
type apiError = googleapi.Error

// NotFound is the API's error for a resource k that is not stored.
func NotFound(k store.Key) *apiError {
	return googleapi.NewError(http.StatusNotFound, api.ReasonNotFound, fmt.Sprintf("The resource '%s' was not found", k.Path()))
}

func alreadyExists(k store.Key) *apiError {
	return googleapi.NewError(http.StatusConflict, api.ReasonAlreadyExists, fmt.Sprintf("The resource '%s' already exists", k.Path()))
}

// StoreError maps the store's sentinel errors for key k to API errors and
// leaves any other error (a storage failure, the emulator's fault) alone.
func StoreError(k store.Key, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NotFound(k)
	case errors.Is(err, store.ErrAlreadyExists):
		return alreadyExists(k)
	}
	return err
}
