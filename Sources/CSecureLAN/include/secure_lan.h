#ifndef COLLAGE_SECURE_LAN_H
#define COLLAGE_SECURE_LAN_H

#include <stddef.h>

// Makes a self-signed TLS server certificate and its ECDSA P-256 key with GnuTLS, both as PEM
// text the caller frees with free(). The certificate names `common_name`, holds every address of
// `addresses` (IPv4 or IPv6 text) and every host name of `names` as subject alternative names, is
// valid from a day ago for `days` days, and is signed with SHA-256. Returns 0, or a GnuTLS error
// code with `error` (of `error_size` bytes) saying which step failed.
int collage_make_certificate(const char *common_name, const char *const *addresses, int address_count,
                             const char *const *names, int name_count, int days, char **certificate_pem,
                             char **key_pem, char *error, size_t error_size);

// Reads a PEM certificate and says whether it is still valid `margin_seconds` from now and its
// key matches `key_pem`: 1 when it can be used, 0 when not (expired, damaged, or another key).
int collage_certificate_usable(const char *certificate_pem, const char *key_pem, long margin_seconds);

#endif
