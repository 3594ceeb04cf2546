#include "secure_lan.h"

#include <arpa/inet.h>
#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// PEM data as a NUL-terminated copy the caller frees with free().
static char *copy_text(const gnutls_datum_t *data) {
    char *text = malloc(data->size + 1);
    if (text) {
        memcpy(text, data->data, data->size);
        text[data->size] = '\0';
    }
    return text;
}

#define CHECK(call, step)                                                                                              \
    do {                                                                                                               \
        result = (call);                                                                                               \
        if (result < 0) {                                                                                              \
            snprintf(error, error_size, "%s: %s", step, gnutls_strerror(result));                                     \
            goto done;                                                                                                 \
        }                                                                                                              \
    } while (0)

int collage_make_certificate(const char *common_name, const char *const *addresses, int address_count,
                             const char *const *names, int name_count, int days, char **certificate_pem,
                             char **key_pem, char *error, size_t error_size) {
    gnutls_x509_privkey_t key = NULL;
    gnutls_x509_crt_t certificate = NULL;
    gnutls_datum_t exported = {NULL, 0};
    int result = 0;
    *certificate_pem = NULL;
    *key_pem = NULL;

    CHECK(gnutls_x509_privkey_init(&key), "preparing the key");
    CHECK(gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
          "generating the key");
    CHECK(gnutls_x509_crt_init(&certificate), "preparing the certificate");
    CHECK(gnutls_x509_crt_set_version(certificate, 3), "setting the version");
    unsigned char serial[16];
    CHECK(gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof serial), "drawing a serial number");
    serial[0] &= 0x7F; // a positive number, as RFC 5280 asks
    CHECK(gnutls_x509_crt_set_serial(certificate, serial, sizeof serial), "setting the serial number");
    time_t now = time(NULL);
    CHECK(gnutls_x509_crt_set_activation_time(certificate, now - 24 * 3600), "setting the start date");
    CHECK(gnutls_x509_crt_set_expiration_time(certificate, now + (time_t)days * 24 * 3600), "setting the end date");
    CHECK(gnutls_x509_crt_set_dn_by_oid(certificate, GNUTLS_OID_X520_COMMON_NAME, 0, common_name,
                                        (unsigned)strlen(common_name)),
          "naming the certificate");
    CHECK(gnutls_x509_crt_set_key(certificate, key), "attaching the key");
    CHECK(gnutls_x509_crt_set_basic_constraints(certificate, 0, -1), "marking it a server's certificate");
    CHECK(gnutls_x509_crt_set_key_usage(certificate, GNUTLS_KEY_DIGITAL_SIGNATURE), "setting the key usage");
    CHECK(gnutls_x509_crt_set_key_purpose_oid(certificate, GNUTLS_KP_TLS_WWW_SERVER, 0), "setting the purpose");
    for (int index = 0; index < address_count; index++) {
        unsigned char bytes[16];
        unsigned size = 0;
        if (inet_pton(AF_INET, addresses[index], bytes) == 1) {
            size = 4;
        } else if (inet_pton(AF_INET6, addresses[index], bytes) == 1) {
            size = 16;
        } else {
            continue;
        }
        CHECK(gnutls_x509_crt_set_subject_alt_name(certificate, GNUTLS_SAN_IPADDRESS, bytes, size, GNUTLS_FSAN_APPEND),
              "adding an address");
    }
    for (int index = 0; index < name_count; index++) {
        CHECK(gnutls_x509_crt_set_subject_alt_name(certificate, GNUTLS_SAN_DNSNAME, names[index],
                                                   (unsigned)strlen(names[index]), GNUTLS_FSAN_APPEND),
              "adding a host name");
    }
    unsigned char key_id[64];
    size_t key_id_size = sizeof key_id;
    CHECK(gnutls_x509_crt_get_key_id(certificate, 0, key_id, &key_id_size), "finding the key's id");
    CHECK(gnutls_x509_crt_set_subject_key_id(certificate, key_id, key_id_size), "setting the key's id");
    CHECK(gnutls_x509_crt_sign2(certificate, certificate, key, GNUTLS_DIG_SHA256, 0), "signing the certificate");

    CHECK(gnutls_x509_crt_export2(certificate, GNUTLS_X509_FMT_PEM, &exported), "writing the certificate");
    *certificate_pem = copy_text(&exported);
    gnutls_free(exported.data);
    exported.data = NULL;
    CHECK(gnutls_x509_privkey_export2(key, GNUTLS_X509_FMT_PEM, &exported), "writing the key");
    *key_pem = copy_text(&exported);
    gnutls_free(exported.data);
    exported.data = NULL;
    if (!*certificate_pem || !*key_pem) {
        snprintf(error, error_size, "out of memory");
        result = GNUTLS_E_MEMORY_ERROR;
    }

done:
    if (result < 0) {
        free(*certificate_pem);
        free(*key_pem);
        *certificate_pem = NULL;
        *key_pem = NULL;
    }
    if (certificate) gnutls_x509_crt_deinit(certificate);
    if (key) gnutls_x509_privkey_deinit(key);
    return result < 0 ? result : 0;
}

int collage_certificate_usable(const char *certificate_pem, const char *key_pem, long margin_seconds) {
    gnutls_x509_crt_t certificate = NULL;
    gnutls_x509_privkey_t key = NULL;
    int usable = 0;
    gnutls_datum_t certificate_data = {(unsigned char *)certificate_pem, (unsigned)strlen(certificate_pem)};
    gnutls_datum_t key_data = {(unsigned char *)key_pem, (unsigned)strlen(key_pem)};
    if (gnutls_x509_crt_init(&certificate) < 0 || gnutls_x509_privkey_init(&key) < 0) goto done;
    if (gnutls_x509_crt_import(certificate, &certificate_data, GNUTLS_X509_FMT_PEM) < 0) goto done;
    if (gnutls_x509_privkey_import(key, &key_data, GNUTLS_X509_FMT_PEM) < 0) goto done;
    time_t expires = gnutls_x509_crt_get_expiration_time(certificate);
    if (expires == (time_t)-1 || expires < time(NULL) + margin_seconds) goto done;
    unsigned char certificate_key_id[64], key_id[64];
    size_t certificate_key_id_size = sizeof certificate_key_id, key_id_size = sizeof key_id;
    if (gnutls_x509_crt_get_key_id(certificate, 0, certificate_key_id, &certificate_key_id_size) < 0) goto done;
    if (gnutls_x509_privkey_get_key_id(key, 0, key_id, &key_id_size) < 0) goto done;
    usable = certificate_key_id_size == key_id_size && memcmp(certificate_key_id, key_id, key_id_size) == 0;
done:
    if (certificate) gnutls_x509_crt_deinit(certificate);
    if (key) gnutls_x509_privkey_deinit(key);
    return usable;
}
