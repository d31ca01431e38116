// Package isotime parses, canonicalises and does grid arithmetic on the
// ISO-8601 periods and RFC 3339 timestamps of the on-disk format
// (docs/format.md §5).
//
// It exists because these spellings are not cosmetic: the canonical period
// string is part of a series' uniqueness key and of dataset names, so two
// writers that spell "one hour" as PT1H and PT60M must still produce the same
// bytes, and every reader must map any valid spelling onto that one form.
// Keeping the rules in one small package means there is exactly one
// definition of "the same period" and "the same instant" in the store.
//
// Instants are UTC and limited to years 0000–9999, the range RFC 3339 can
// write; functions that would leave it return an error rather than an
// instant the format cannot store.
package isotime
