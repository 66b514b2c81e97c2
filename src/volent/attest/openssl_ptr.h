// Owning pointers for the OpenSSL objects the quote check uses (internal to
// src/volent/attest): each frees its object with OpenSSL's own function.
#pragma once

#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <memory>

namespace volent::attest {

template <auto F>
struct OpensslFree {
  template <class T>
  void operator()(T* p) const { F(p); }
};
using BioPtr = std::unique_ptr<BIO, OpensslFree<BIO_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, OpensslFree<EVP_PKEY_free>>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, OpensslFree<EVP_PKEY_CTX_free>>;
using ParamBldPtr = std::unique_ptr<OSSL_PARAM_BLD, OpensslFree<OSSL_PARAM_BLD_free>>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, OpensslFree<OSSL_PARAM_free>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, OpensslFree<EVP_MD_CTX_free>>;
using EcdsaSigPtr = std::unique_ptr<ECDSA_SIG, OpensslFree<ECDSA_SIG_free>>;

}  // namespace volent::attest
