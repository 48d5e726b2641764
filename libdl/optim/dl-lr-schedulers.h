/* dl-lr-schedulers.h: the epoch-based learning-rate schedulers of
 * torch.optim.lr_scheduler: StepLR, MultiStepLR, ExponentialLR,
 * CosineAnnealingLR, LinearLR, LambdaLR, OneCycleLR,
 * CosineAnnealingWarmRestarts and SequentialLR (dl-lr-schedulers.c);
 * ConstantLR, PolynomialLR and MultiplicativeLR (dl-lr-schedulers-factor.c);
 * CyclicLR (dl-cyclic-lr.c); ChainedScheduler (dl-chained-scheduler.c).
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(DL_INSIDE) && !defined(DL_COMPILATION)
#error "Only <dl.h> can be included directly."
#endif

#include "optim/dl-lr-scheduler.h"

G_BEGIN_DECLS

#define DL_TYPE_STEP_LR (dl_step_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlStepLr, dl_step_lr, DL, STEP_LR, DlLrScheduler)

#define DL_TYPE_MULTI_STEP_LR (dl_multi_step_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMultiStepLr, dl_multi_step_lr, DL, MULTI_STEP_LR, DlLrScheduler)

#define DL_TYPE_EXPONENTIAL_LR (dl_exponential_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlExponentialLr, dl_exponential_lr, DL, EXPONENTIAL_LR, DlLrScheduler)

#define DL_TYPE_COSINE_ANNEALING_LR (dl_cosine_annealing_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlCosineAnnealingLr,
                      dl_cosine_annealing_lr,
                      DL,
                      COSINE_ANNEALING_LR,
                      DlLrScheduler)

#define DL_TYPE_LINEAR_LR (dl_linear_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlLinearLr, dl_linear_lr, DL, LINEAR_LR, DlLrScheduler)

#define DL_TYPE_LAMBDA_LR (dl_lambda_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlLambdaLr, dl_lambda_lr, DL, LAMBDA_LR, DlLrScheduler)

#define DL_TYPE_ONE_CYCLE_LR (dl_one_cycle_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlOneCycleLr, dl_one_cycle_lr, DL, ONE_CYCLE_LR, DlLrScheduler)

#define DL_TYPE_COSINE_ANNEALING_WARM_RESTARTS (dl_cosine_annealing_warm_restarts_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlCosineAnnealingWarmRestarts,
                      dl_cosine_annealing_warm_restarts,
                      DL,
                      COSINE_ANNEALING_WARM_RESTARTS,
                      DlLrScheduler)

#define DL_TYPE_SEQUENTIAL_LR (dl_sequential_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlSequentialLr, dl_sequential_lr, DL, SEQUENTIAL_LR, DlLrScheduler)

#define DL_TYPE_CONSTANT_LR (dl_constant_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlConstantLr, dl_constant_lr, DL, CONSTANT_LR, DlLrScheduler)

#define DL_TYPE_POLYNOMIAL_LR (dl_polynomial_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlPolynomialLr, dl_polynomial_lr, DL, POLYNOMIAL_LR, DlLrScheduler)

#define DL_TYPE_MULTIPLICATIVE_LR (dl_multiplicative_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlMultiplicativeLr,
                      dl_multiplicative_lr,
                      DL,
                      MULTIPLICATIVE_LR,
                      DlLrScheduler)

#define DL_TYPE_CHAINED_SCHEDULER (dl_chained_scheduler_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlChainedScheduler,
                      dl_chained_scheduler,
                      DL,
                      CHAINED_SCHEDULER,
                      DlLrScheduler)

#define DL_TYPE_CYCLIC_LR (dl_cyclic_lr_get_type ())
DL_EXPORT
G_DECLARE_FINAL_TYPE (DlCyclicLr, dl_cyclic_lr, DL, CYCLIC_LR, DlLrScheduler)

/**
 * DlLrLambda:
 * @group: the parameter group's index
 * @epoch: the epoch
 * @factor: (out): return location for the factor
 * @user_data: the data given with the function
 * @error: return location for a #GError (the step fails with it)
 *
 * The multiplicative factor of a #DlLambdaLr: the learning rate of
 * @group at @epoch is its base learning rate times @factor. One
 * function serves every group; it tells them apart by @group.
 *
 * The factor comes back through an out parameter, not as the return
 * value, because GJS 1.74 turns the double a JavaScript callback returns
 * into 0, whereas an out double arrives intact. From Python and GJS the function
 * simply returns the factor (and may raise); Vala's lambda assigns its
 * `out double factor`.
 *
 * Since: 0.1
 */
typedef void (
    *DlLrLambda) (guint group, gint64 epoch, gdouble *factor, gpointer user_data, GError **error);

DL_EXPORT
DlStepLr *
dl_step_lr_new (DlOptimizer *optimizer, gint64 step_size, gdouble gamma, GError **error);
DL_EXPORT
DlMultiStepLr *dl_multi_step_lr_new (DlOptimizer *optimizer,
                                     const gint64 *milestones,
                                     gsize n_milestones,
                                     gdouble gamma,
                                     GError **error);
DL_EXPORT
DlExponentialLr *dl_exponential_lr_new (DlOptimizer *optimizer, gdouble gamma, GError **error);
DL_EXPORT
DlCosineAnnealingLr *dl_cosine_annealing_lr_new (DlOptimizer *optimizer,
                                                 gint64 t_max,
                                                 gdouble eta_min,
                                                 GError **error);
DL_EXPORT
DlLinearLr *dl_linear_lr_new (DlOptimizer *optimizer,
                              gdouble start_factor,
                              gdouble end_factor,
                              gint64 total_iters,
                              GError **error);
DL_EXPORT
DlLambdaLr *dl_lambda_lr_new (DlOptimizer *optimizer,
                              DlLrLambda lr_lambda,
                              gpointer user_data,
                              GDestroyNotify destroy,
                              GError **error);
DL_EXPORT
void dl_lambda_lr_set_lambda (DlLambdaLr *self,
                              DlLrLambda lr_lambda,
                              gpointer user_data,
                              GDestroyNotify destroy);
DL_EXPORT
DlOneCycleLr *dl_one_cycle_lr_new (DlOptimizer *optimizer,
                                   gdouble max_lr,
                                   gint64 total_steps,
                                   GError **error);
DL_EXPORT
DlCosineAnnealingWarmRestarts *dl_cosine_annealing_warm_restarts_new (DlOptimizer *optimizer,
                                                                      gint64 t_0,
                                                                      gint64 t_mult,
                                                                      gdouble eta_min,
                                                                      GError **error);
DL_EXPORT
DlSequentialLr *dl_sequential_lr_new (DlOptimizer *optimizer,
                                      GPtrArray *schedulers,
                                      const gint64 *milestones,
                                      gsize n_milestones,
                                      GError **error);
DL_EXPORT
DlConstantLr *
dl_constant_lr_new (DlOptimizer *optimizer, gdouble factor, gint64 total_iters, GError **error);
DL_EXPORT
DlPolynomialLr *
dl_polynomial_lr_new (DlOptimizer *optimizer, gint64 total_iters, gdouble power, GError **error);
DL_EXPORT
DlMultiplicativeLr *dl_multiplicative_lr_new (DlOptimizer *optimizer,
                                              DlLrLambda lr_lambda,
                                              gpointer user_data,
                                              GDestroyNotify destroy,
                                              GError **error);
DL_EXPORT
void dl_multiplicative_lr_set_lambda (DlMultiplicativeLr *self,
                                      DlLrLambda lr_lambda,
                                      gpointer user_data,
                                      GDestroyNotify destroy);
DL_EXPORT
DlCyclicLr *dl_cyclic_lr_new (DlOptimizer *optimizer,
                              gdouble base_lr,
                              gdouble max_lr,
                              gdouble step_size_up,
                              gdouble step_size_down,
                              const gchar *mode,
                              gdouble gamma,
                              gboolean cycle_momentum,
                              gdouble base_momentum,
                              gdouble max_momentum,
                              GError **error);
DL_EXPORT
DlChainedScheduler *dl_chained_scheduler_new (GPtrArray *schedulers, GError **error);
DL_EXPORT
void dl_cyclic_lr_set_scale_fn (DlCyclicLr *self,
                                DlLrLambda scale_fn,
                                gpointer user_data,
                                GDestroyNotify destroy);

G_END_DECLS
