/* dl-ops-einsum.c: Einstein summation over the differentiable primitives.
 *
 * The equation is parsed into one list of labels per operand (letters, and
 * the dims an ellipsis stands for, right-aligned across operands).  Then:
 *   1. a label repeated within one operand takes the diagonal: the operand
 *      is multiplied by an identity matrix laid along the two dims, and one
 *      of them summed away;
 *   2. a label nothing else needs (only in this operand, not in the output)
 *      is summed away;
 *   3. operands are combined left to right, two at a time, with one batched
 *      matrix product: shared labels needed later are the batch, shared
 *      labels not needed later are contracted, the others are the rows and
 *      the columns; size-1 dims broadcast;
 *   4. what remains is summed to the output labels and permuted into place.
 * Every step is a differentiable op (mul, sum, expand, permute, reshape,
 * matmul), so autograd needs no rule of its own.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "dl-ops-private.h"
#include "dl-ops-einsum.h"

#define N_LETTERS 52
#define MAX_LABELS (N_LETTERS + DL_MAX_DIMS)

typedef struct
{
  DlTensor *t; /* owned */
  gint n;      /* labels, one per dim of t */
  gint labels[DL_MAX_DIMS];
} Operand;

static gint
letter_id (gchar c)
{
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return 26 + (c - 'a');
  return -1;
}

static gchar
label_char (gint id)
{
  return id < 26 ? 'A' + id : id < N_LETTERS ? 'a' + id - 26 : '.';
}

/* Parses one term (without spaces) into letter ids, -2 for the ellipsis. */
static gboolean
parse_term (const gchar *term,
            gsize len,
            gint *ids,
            gint *n_ids,
            gboolean *has_ellipsis,
            GError **error)
{
  *n_ids = 0;
  *has_ellipsis = FALSE;
  for (gsize i = 0; i < len; i++)
    {
      if (term[i] == '.')
        {
          if (*has_ellipsis || i + 2 >= len || term[i + 1] != '.' || term[i + 2] != '.')
            {
              g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                           "einsum: found '.' for %s that is not part of any ellipsis "
                           "('...'), or more than one ellipsis in a term",
                           *has_ellipsis ? "a term" : "an operand");
              return FALSE;
            }
          *has_ellipsis = TRUE;
          if (*n_ids >= DL_MAX_DIMS)
            goto too_many;
          ids[(*n_ids)++] = -2;
          i += 2;
          continue;
        }
      if (letter_id (term[i]) < 0)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                       "einsum: invalid subscript given at index %" G_GSIZE_FORMAT
                       " in the equation string, subscripts must be in [a-zA-Z]",
                       i);
          return FALSE;
        }
      if (*n_ids >= DL_MAX_DIMS)
        goto too_many;
      ids[(*n_ids)++] = letter_id (term[i]);
    }
  return TRUE;

too_many:
  g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "einsum: a term has more than %d subscripts",
               DL_MAX_DIMS);
  return FALSE;
}

static void
operand_replace (Operand *op, DlTensor *t)
{
  g_object_unref (op->t);
  op->t = t;
}

static void
operand_remove_dims (Operand *op, gboolean *drop)
{
  gint k = 0;

  for (gint i = 0; i < op->n; i++)
    if (!drop[i])
      op->labels[k++] = op->labels[i];
  op->n = k;
}

/* Sums away the dims of @op flagged in @drop. */
static gboolean
operand_sum (Operand *op, gboolean *drop, GError **error)
{
  gint64 dims[DL_MAX_DIMS];
  gint nd = 0;
  DlTensor *s;

  for (gint i = 0; i < op->n; i++)
    if (drop[i])
      dims[nd++] = i;
  if (nd == 0)
    return TRUE;
  if (!(s = dl_tensor_sum_dims (op->t, dims, nd, FALSE, error)))
    return FALSE;
  operand_replace (op, s);
  operand_remove_dims (op, drop);
  return TRUE;
}

/* Takes the diagonal of the dims d1 < d2 of @op, which share a label. */
static gboolean
operand_diagonal (Operand *op, gint d1, gint d2, GError **error)
{
  gint64 n = op->t->sizes[d1];
  gint64 shape[DL_MAX_DIMS];
  gboolean drop[DL_MAX_DIMS] = { FALSE };
  g_autoptr (DlTensor) eye = NULL;
  g_autoptr (DlTensor) eye_v = NULL;
  g_autoptr (DlTensor) prod = NULL;
  DlTensor *s;

  if (op->t->sizes[d2] != n)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_SHAPE,
                   "einsum: subscript %c is repeated for an operand but the sizes don't match, "
                   "%" G_GINT64_FORMAT " != %" G_GINT64_FORMAT,
                   label_char (op->labels[d1]), n, op->t->sizes[d2]);
      return FALSE;
    }
  for (gint i = 0; i < op->n; i++)
    shape[i] = i == d1 || i == d2 ? n : 1;
  if (!(eye = dl_eye (n, n, op->t->dtype == DL_DTYPE_BOOL ? DL_DTYPE_UINT8 : op->t->dtype,
                      dl_tensor_device (op->t), error))
      || !(eye_v = dl_reshape_view (eye, shape, op->n, error))
      || !(prod = dl_tensor_mul (op->t, eye_v, error))
      || !(s = dl_tensor_sum_dims (prod, (gint64[]){ d2 }, 1, FALSE, error)))
    return FALSE;
  if (s->dtype != op->t->dtype)
    {
      /* one nonzero term per sum: the diagonal keeps the operand's dtype */
      DlTensor *c = dl_tensor_to_dtype (s, op->t->dtype, error);

      g_object_unref (s);
      if (!(s = c))
        return FALSE;
    }
  operand_replace (op, s);
  drop[d2] = TRUE;
  operand_remove_dims (op, drop);
  return TRUE;
}

static gint
find_label (const Operand *op, gint label)
{
  for (gint i = 0; i < op->n; i++)
    if (op->labels[i] == label)
      return i;
  return -1;
}

/* Combines @a and @b into @a with one batched matrix product; @needed says
 * which labels the output or a later operand still uses. */
static gboolean
contract_pair (Operand *a, Operand *b, const gboolean *needed, GError **error)
{
  gint64 perm_a[DL_MAX_DIMS], perm_b[DL_MAX_DIMS];
  gint batch[DL_MAX_DIMS], rows[DL_MAX_DIMS], cols[DL_MAX_DIMS], inner[DL_MAX_DIMS];
  gint nb = 0, nr = 0, nc = 0, ni = 0, k;
  gint64 shape[DL_MAX_DIMS], bsz = 1, m = 1, n = 1, kk = 1;
  gint64 sa[DL_MAX_DIMS], sb[DL_MAX_DIMS];
  gboolean drop_a[DL_MAX_DIMS] = { FALSE }, drop_b[DL_MAX_DIMS] = { FALSE };
  gboolean expand_a = FALSE, expand_b = FALSE;
  g_autoptr (DlTensor) pa = NULL;
  g_autoptr (DlTensor) pb = NULL;
  g_autoptr (DlTensor) ra = NULL;
  g_autoptr (DlTensor) rb = NULL;
  g_autoptr (DlTensor) prod = NULL;
  DlTensor *out;

  /* labels in one of the two only, and needed by nothing later */
  for (gint i = 0; i < a->n; i++)
    drop_a[i] = !needed[a->labels[i]] && find_label (b, a->labels[i]) < 0;
  for (gint i = 0; i < b->n; i++)
    drop_b[i] = !needed[b->labels[i]] && find_label (a, b->labels[i]) < 0;
  if (!operand_sum (a, drop_a, error) || !operand_sum (b, drop_b, error))
    return FALSE;

  /* an integer operand summed above became int64: widen the other too */
  if (a->t->dtype != b->t->dtype)
    {
      Operand *narrow = a->t->dtype == DL_DTYPE_INT64 ? b : a;
      DlTensor *w = dl_tensor_to_dtype (narrow->t, DL_DTYPE_INT64, error);
      if (!w)
        return FALSE;
      operand_replace (narrow, w);
    }

  /* size-1 dims broadcast against the other operand */
  memcpy (sa, a->t->sizes, a->n * sizeof (gint64));
  memcpy (sb, b->t->sizes, b->n * sizeof (gint64));
  for (gint i = 0; i < a->n; i++)
    if ((k = find_label (b, a->labels[i])) >= 0 && sa[i] != sb[k])
      {
        if (sa[i] == 1)
          {
            sa[i] = sb[k];
            expand_a = TRUE;
          }
        else if (sb[k] == 1)
          {
            sb[k] = sa[i];
            expand_b = TRUE;
          }
        else
          {
            g_set_error (
                error, DL_ERROR, DL_ERROR_SHAPE,
                "einsum: operands do not broadcast: subscript %c has sizes %" G_GINT64_FORMAT
                " and %" G_GINT64_FORMAT,
                label_char (a->labels[i]), sa[i], sb[k]);
            return FALSE;
          }
      }
  if (expand_a)
    {
      DlTensor *e = dl_tensor_expand (a->t, sa, a->n, error);
      if (!e)
        return FALSE;
      operand_replace (a, e);
    }
  if (expand_b)
    {
      DlTensor *e = dl_tensor_expand (b->t, sb, b->n, error);
      if (!e)
        return FALSE;
      operand_replace (b, e);
    }

  for (gint i = 0; i < a->n; i++)
    {
      k = find_label (b, a->labels[i]);
      if (k < 0)
        {
          rows[nr++] = i;
          m *= sa[i];
        }
      else if (needed[a->labels[i]])
        {
          batch[nb] = i;
          perm_b[nb++] = k;
          bsz *= sa[i];
        }
      else
        {
          inner[ni] = i;
          perm_b[DL_MAX_DIMS - 1 - ni++] = k; /* kept aside, copied below */
          kk *= sa[i];
        }
    }
  for (gint i = 0; i < b->n; i++)
    if (find_label (a, b->labels[i]) < 0)
      {
        cols[nc++] = i;
        n *= sb[i];
      }

  if (nb + nr + nc > DL_MAX_DIMS)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                   "einsum: an intermediate result has more than %d dims", DL_MAX_DIMS);
      return FALSE;
    }

  /* a -> [batch, rows, inner], b -> [batch, inner, cols] */
  for (gint i = 0; i < nb; i++)
    perm_a[i] = batch[i];
  for (gint i = 0; i < nr; i++)
    perm_a[nb + i] = rows[i];
  for (gint i = 0; i < ni; i++)
    perm_a[nb + nr + i] = inner[i];
  for (gint i = 0; i < ni; i++)
    perm_b[nb + i] = perm_b[DL_MAX_DIMS - 1 - i];
  for (gint i = 0; i < nc; i++)
    perm_b[nb + ni + i] = cols[i];

  if (!(pa = dl_tensor_permute (a->t, perm_a, a->n, error))
      || !(pb = dl_tensor_permute (b->t, perm_b, b->n, error))
      || !(ra = dl_reshape_view (pa, (gint64[]){ bsz, m, kk }, 3, error))
      || !(rb = dl_reshape_view (pb, (gint64[]){ bsz, kk, n }, 3, error))
      || !(prod = dl_tensor_matmul (ra, rb, error)))
    return FALSE;

  {
    gint labels[DL_MAX_DIMS], nl = 0;

    for (gint i = 0; i < nb; i++)
      {
        shape[nl] = sa[batch[i]];
        labels[nl++] = a->labels[batch[i]];
      }
    for (gint i = 0; i < nr; i++)
      {
        shape[nl] = sa[rows[i]];
        labels[nl++] = a->labels[rows[i]];
      }
    for (gint i = 0; i < nc; i++)
      {
        shape[nl] = sb[cols[i]];
        labels[nl++] = b->labels[cols[i]];
      }
    if (!(out = dl_reshape_view (prod, shape, nl, error)))
      return FALSE;
    operand_replace (a, out);
    memcpy (a->labels, labels, nl * sizeof (gint));
    a->n = nl;
  }
  return TRUE;
}

/**
 * dl_einsum:
 * @equation: the subscripts, as "ij,jk->ik", "bij,bjk", "ii" or "...ij,...jk"
 * @operands: (array length=n_operands): the tensors, all of one dtype
 * @n_operands: the number of operands, at least 1
 * @error: return location for a #GError
 *
 * Einstein summation, as torch.einsum: each operand's dims are named by
 * letters; letters shared by operands are multiplied along, letters missing
 * from the output summed over.  Without "->" the output holds, after the
 * ellipsis dims, the letters used once, in alphabetical order.  A letter
 * repeated within one operand takes the diagonal.  Size-1 dims broadcast.
 * Differentiable.
 *
 * Returns: (transfer full): the result, or %NULL with @error set
 *
 * Since: 0.1
 */
DlTensor *
dl_einsum (const gchar *equation, DlTensor **operands, gsize n_operands, GError **error)
{
  g_autofree gchar *eq = NULL;
  gchar *arrow, *lhs, *rhs = NULL, *p;
  gsize n_terms = 1;
  Operand *ops = NULL;
  gint out[MAX_LABELS], n_out = 0, max_ell = 0;
  gint count[MAX_LABELS] = { 0 };
  gboolean in_output[MAX_LABELS] = { FALSE };
  DlTensor *result = NULL;

  g_return_val_if_fail (equation != NULL, NULL);
  g_return_val_if_fail (operands != NULL || n_operands == 0, NULL);
  for (gsize i = 0; i < n_operands; i++)
    g_return_val_if_fail (DL_IS_TENSOR (operands[i]), NULL);

  /* the equation without spaces */
  eq = g_strdup (equation);
  p = eq;
  for (const gchar *c = equation; *c; c++)
    if (!g_ascii_isspace (*c))
      *p++ = *c;
  *p = '\0';
  lhs = eq;
  if ((arrow = strstr (eq, "->")) != NULL)
    {
      *arrow = '\0';
      rhs = arrow + 2;
    }
  for (p = lhs; *p; p++)
    n_terms += *p == ',';
  if (n_operands == 0)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT, "einsum: must provide at least one operand");
      return NULL;
    }
  if (n_terms != n_operands)
    {
      g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                   "einsum: the equation '%s' has %" G_GSIZE_FORMAT
                   " operand terms, but %" G_GSIZE_FORMAT " operands were given",
                   equation, n_terms, n_operands);
      return NULL;
    }
  for (gsize i = 1; i < n_operands; i++)
    if (operands[i]->dtype != operands[0]->dtype)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_DTYPE,
                     "einsum: expected all operands to have the same dtype, but operand 0 is %s "
                     "and operand %" G_GSIZE_FORMAT " is %s",
                     dl_dtype_get_name (operands[0]->dtype), i,
                     dl_dtype_get_name (operands[i]->dtype));
        return NULL;
      }
  for (gsize i = 1; i < n_operands; i++)
    if (!dl_check_same_device ("einsum", operands[0], operands[i], error))
      return NULL;

  ops = g_new0 (Operand, n_operands);

  /* 1. the labels of each operand, ellipsis dims right-aligned */
  {
    gint ids[DL_MAX_DIMS][DL_MAX_DIMS], n_ids[DL_MAX_DIMS];
    gboolean ell[DL_MAX_DIMS];
    gint n_ell[DL_MAX_DIMS];
    gchar *term = lhs;

    if (n_operands > DL_MAX_DIMS)
      {
        g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                     "einsum: at most %d operands are supported", DL_MAX_DIMS);
        goto out;
      }
    for (gsize i = 0; i < n_operands; i++)
      {
        gchar *end = strchr (term, ',');
        gsize len = end ? (gsize)(end - term) : strlen (term);
        gint letters;
        DlTensor *t = operands[i];

        if (!parse_term (term, len, ids[i], &n_ids[i], &ell[i], error))
          goto out;
        letters = n_ids[i] - (ell[i] ? 1 : 0);
        if ((!ell[i] && letters != t->ndim) || (ell[i] && letters > t->ndim))
          {
            g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                         "einsum: the number of subscripts in the equation (%d) %s the number "
                         "of dimensions (%d) for operand %" G_GSIZE_FORMAT "%s",
                         letters, ell[i] ? "is more than" : "does not match", t->ndim, i,
                         ell[i] ? "" : " and no ellipsis was given");
            goto out;
          }
        n_ell[i] = ell[i] ? t->ndim - letters : 0;
        max_ell = MAX (max_ell, n_ell[i]);
        term = end ? end + 1 : term + len;
      }
    for (gsize i = 0; i < n_operands; i++)
      {
        Operand *op = &ops[i];

        op->t = g_object_ref (operands[i]);
        for (gint j = 0; j < n_ids[i]; j++)
          if (ids[i][j] == -2)
            for (gint e = 0; e < n_ell[i]; e++)
              op->labels[op->n++] = N_LETTERS + max_ell - n_ell[i] + e;
          else
            op->labels[op->n++] = ids[i][j];
        for (gint j = 0; j < op->n; j++)
          count[op->labels[j]]++;
      }
  }

  /* 2. the output labels */
  if (rhs != NULL)
    {
      gint ids[DL_MAX_DIMS], n_ids;
      gboolean ell;

      if (!parse_term (rhs, strlen (rhs), ids, &n_ids, &ell, error))
        goto out;
      for (gint j = 0; j < n_ids; j++)
        if (ids[j] == -2)
          for (gint e = 0; e < max_ell; e++)
            out[n_out++] = N_LETTERS + e;
        else
          {
            if (count[ids[j]] == 0)
              {
                g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                             "einsum: output subscript %c does not appear in the equation for "
                             "any input operand",
                             label_char (ids[j]));
                goto out;
              }
            if (in_output[ids[j]])
              {
                g_set_error (error, DL_ERROR, DL_ERROR_ARGUMENT,
                             "einsum: output subscript %c appears more than once in the output",
                             label_char (ids[j]));
                goto out;
              }
            in_output[ids[j]] = TRUE;
            out[n_out++] = ids[j];
          }
      if (n_out > DL_MAX_DIMS)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                       "einsum: the output has more than %d dims", DL_MAX_DIMS);
          goto out;
        }
      for (gint e = 0; e < max_ell; e++)
        in_output[N_LETTERS + e] = TRUE;
    }
  else
    {
      for (gint e = 0; e < max_ell; e++)
        out[n_out++] = N_LETTERS + e;
      for (gint l = 0; l < N_LETTERS; l++)
        if (count[l] == 1)
          out[n_out++] = l;
      if (n_out > DL_MAX_DIMS)
        {
          g_set_error (error, DL_ERROR, DL_ERROR_NOT_SUPPORTED,
                       "einsum: the output has more than %d dims", DL_MAX_DIMS);
          goto out;
        }
    }
  for (gint j = 0; j < n_out; j++)
    in_output[out[j]] = TRUE;

  /* 3. diagonals, and labels only one operand has */
  for (gsize i = 0; i < n_operands; i++)
    {
      Operand *op = &ops[i];
      gboolean again = TRUE;
      gboolean drop[DL_MAX_DIMS] = { FALSE };

      while (again)
        {
          again = FALSE;
          for (gint d1 = 0; d1 < op->n && !again; d1++)
            for (gint d2 = d1 + 1; d2 < op->n && !again; d2++)
              if (op->labels[d1] == op->labels[d2])
                {
                  count[op->labels[d2]]--;
                  if (!operand_diagonal (op, d1, d2, error))
                    goto out;
                  again = TRUE;
                }
        }
      for (gint d = 0; d < op->n; d++)
        {
          gint l = op->labels[d];
          drop[d] = !in_output[l] && count[l] == 1;
        }
      for (gint d = 0; d < op->n; d++)
        if (drop[d])
          count[op->labels[d]]--;
      if (!operand_sum (op, drop, error))
        goto out;
    }

  /* 4. left to right, two at a time */
  for (gsize i = 1; i < n_operands; i++)
    {
      gboolean needed[MAX_LABELS];

      memcpy (needed, in_output, sizeof needed);
      for (gsize j = i + 1; j < n_operands; j++)
        for (gint d = 0; d < ops[j].n; d++)
          needed[ops[j].labels[d]] = TRUE;
      if (!contract_pair (&ops[0], &ops[i], needed, error))
        goto out;
    }

  /* 5. sum to the output labels, then put them in order */
  {
    gboolean drop[DL_MAX_DIMS] = { FALSE };
    gint64 perm[DL_MAX_DIMS];
    g_autoptr (DlTensor) r = NULL;

    for (gint d = 0; d < ops[0].n; d++)
      drop[d] = !in_output[ops[0].labels[d]];
    if (!operand_sum (&ops[0], drop, error))
      goto out;
    /* every output label is now present exactly once */
    for (gint j = 0; j < n_out; j++)
      perm[j] = find_label (&ops[0], out[j]);
    if (!(r = dl_tensor_permute (ops[0].t, perm, n_out, error)))
      goto out;
    /* integer sums come out as int64, as torch's do */
    result = g_steal_pointer (&r);
  }

out:
  for (gsize i = 0; i < n_operands; i++)
    g_clear_object (&ops[i].t);
  g_free (ops);
  return result;
}
