/* dl-ops-creation.h
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "dl-tensor.h"
#include "dl-generator.h"
#include "ops/dl-ops-pointwise.h"

G_BEGIN_DECLS

DL_EXPORT
DlTensor *
dl_empty (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error);
DL_EXPORT
DlTensor *dl_empty_like (DlTensor *like, DlDType dtype, DlMemoryFormat format, GError **error);
DL_EXPORT
DlTensor *
dl_zeros (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error);
DL_EXPORT
DlTensor *
dl_ones (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error);
DL_EXPORT
DlTensor *dl_full (const gint64 *shape,
                   gsize n_dims,
                   gdouble value,
                   DlDType dtype,
                   DlDevice *device,
                   GError **error);
DL_EXPORT
DlTensor *dl_arange (gdouble start,
                     gdouble end,
                     gdouble step,
                     DlDType dtype,
                     DlDevice *device,
                     GError **error);
DL_EXPORT
DlTensor *
dl_rand (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error);
DL_EXPORT
DlTensor *
dl_randn (const gint64 *shape, gsize n_dims, DlDType dtype, DlDevice *device, GError **error);
DL_EXPORT
DlTensor *dl_randint (gint64 low,
                      gint64 high,
                      const gint64 *shape,
                      gsize n_dims,
                      DlDType dtype,
                      DlDevice *device,
                      GError **error);
DL_EXPORT
DlGenerator *dl_manual_seed (guint64 seed);
DL_EXPORT
DlTensor *dl_tensor_uniform_ (DlTensor *self, gdouble from, gdouble to, GError **error);
DL_EXPORT
DlTensor *dl_tensor_normal_ (DlTensor *self, gdouble mean, gdouble std, GError **error);
DL_EXPORT
DlTensor *dl_rand_gen (const gint64 *shape,
                       gsize n_dims,
                       DlDType dtype,
                       DlDevice *device,
                       DlGenerator *generator,
                       GError **error);
DL_EXPORT
DlTensor *dl_randn_gen (const gint64 *shape,
                        gsize n_dims,
                        DlDType dtype,
                        DlDevice *device,
                        DlGenerator *generator,
                        GError **error);
DL_EXPORT
DlTensor *dl_tensor_random_ (DlTensor *self, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_tensor_random_range_ (DlTensor *self,
                                   gint64 from,
                                   gint64 to,
                                   DlGenerator *generator,
                                   GError **error);
DL_EXPORT
DlTensor *dl_randint_gen (gint64 low,
                          gint64 high,
                          const gint64 *shape,
                          gsize n_dims,
                          DlDType dtype,
                          DlDevice *device,
                          DlGenerator *generator,
                          GError **error);
DL_EXPORT
DlTensor *
dl_randperm (gint64 n, DlDType dtype, DlDevice *device, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_tensor_uniform_gen_ (DlTensor *self,
                                  gdouble from,
                                  gdouble to,
                                  DlGenerator *generator,
                                  GError **error);
DL_EXPORT
DlTensor *dl_tensor_normal_gen_ (DlTensor *self,
                                 gdouble mean,
                                 gdouble std,
                                 DlGenerator *generator,
                                 GError **error);
DL_EXPORT
DlTensor *dl_tensor_bernoulli_ (DlTensor *self, gdouble p, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_multinomial (DlTensor *probs,
                          gint64 num_samples,
                          gboolean replacement,
                          DlGenerator *generator,
                          GError **error);
DL_EXPORT
DlTensor *
dl_tensor_exponential_ (DlTensor *self, gdouble lambd, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_tensor_cauchy_ (DlTensor *self,
                             gdouble median,
                             gdouble sigma,
                             DlGenerator *generator,
                             GError **error);
DL_EXPORT
DlTensor *dl_tensor_log_normal_ (DlTensor *self,
                                 gdouble mean,
                                 gdouble std,
                                 DlGenerator *generator,
                                 GError **error);
DL_EXPORT
DlTensor *dl_tensor_geometric_ (DlTensor *self, gdouble p, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_standard_gamma (DlTensor *alpha, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_standard_gamma_grad (DlTensor *alpha, DlTensor *sample, GError **error);
DL_EXPORT
DlTensor *dl_poisson (DlTensor *rates, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_binomial (DlTensor *count, DlTensor *prob, DlGenerator *generator, GError **error);
DL_EXPORT
DlTensor *dl_linspace (gdouble start,
                       gdouble end,
                       gint64 steps,
                       DlDType dtype,
                       DlDevice *device,
                       GError **error);
DL_EXPORT
DlTensor *dl_eye (gint64 n, gint64 m, DlDType dtype, DlDevice *device, GError **error);

G_END_DECLS
