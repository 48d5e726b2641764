/* char_lm.vala: the character-level language model of
 * examples/python/char_lm.py (--model lstm), trained from Vala.
 *
 * CharLstm, a Dl.Module subclass, has the Python model's layers under the
 * same names (embed, lstm, head): an embedding, a Dl.Lstm and a linear
 * read-out. It trains with AdamW and gradient clipping on random windows
 * of a text file, then samples from it, carrying the LSTM's state from
 * one character to the next.
 *
 * Build (from an installed libdl):
 *   valac --pkg dl-1.0 --pkg gio-2.0 char_lm.vala
 * Run:
 *   ./char_lm [steps] [text-file] [hidden]
 *
 * Prints the loss as it trains and a sample; exits with status 0 when the
 * mean loss of the last tenth of the steps is below 0.8 times the first's.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

const string DEFAULT_TEXT = "/usr/share/games/fortunes/fortunes";
const int64 BATCH = 16;
const int64 STEPS = 64;

class CharLstm : Dl.Module {
    private Dl.Embedding embed;
    private Dl.Lstm lstm;
    private Dl.Linear head;

    public CharLstm (int64 vocab, int64 embed_dim, int64 hidden) throws GLib.Error {
        Object ();
        embed = new Dl.Embedding (vocab, embed_dim, -1);
        lstm = new Dl.Lstm (embed_dim, hidden, 1, true, true, 0, false, 0);
        head = new Dl.Linear (hidden, vocab, true);
        register_module ("embed", embed);
        register_module ("lstm", lstm);
        register_module ("head", head);
    }

    /* the logits (batch, steps, vocab) of @ids (batch, steps), the LSTM
     * starting from (@h0, @c0), or zeros when they are null */
    public Dl.Tensor run (Dl.Tensor ids, Dl.Tensor? h0, Dl.Tensor? c0,
                          out Dl.Tensor h_n, out Dl.Tensor c_n) throws GLib.Error {
        var y = lstm.forward_state (embed.forward (ids), h0, c0, out h_n, out c_n);
        return head.forward (y);
    }

    public override Dl.Tensor forward (Dl.Tensor ids) throws GLib.Error {
        Dl.Tensor h, c;
        return run (ids, null, null, out h, out c);
    }
}

/* an int64 tensor of @shape holding @values */
Dl.Tensor int64_tensor (int64[] values, int64[] shape) throws GLib.Error {
    var buf = new uint8[values.length * sizeof (int64)];
    Memory.copy (buf, values, buf.length);
    return new Dl.Tensor.from_bytes (new Bytes (buf), shape, Dl.DType.INT64);
}

/* @n characters sampled after a newline, one at a time */
string sample (CharLstm model, string vocab, int[] index, int n, double temperature)
    throws GLib.Error {
    var was_enabled = Dl.set_grad_enabled (false);
    model.set_training (false);
    var text = new StringBuilder ();
    try {
        Dl.Tensor? h = null, c = null;
        int64 next = index['\n'];
        for (int i = 0; i < n; i++) {
            Dl.Tensor h_n, c_n;
            var logits = model.run (int64_tensor ({ next }, { 1, 1 }), h, c, out h_n, out c_n);
            h = h_n;
            c = c_n;
            var probs = logits.reshape ({ -1 }).div_scalar (temperature).softmax (0);
            next = (int64) Dl.multinomial (probs, 1).item ();
            text.append_c (vocab[(int) next]);
        }
    } finally {
        model.set_training (true);
        Dl.set_grad_enabled (was_enabled);
    }
    return text.str;
}

int main (string[] args) {
    int steps = args.length > 1 ? int.parse (args[1]) : 300;
    string path = args.length > 2 ? args[2] : DEFAULT_TEXT;
    int64 hidden = args.length > 3 ? int64.parse (args[3]) : 256;
    try {
        uint8[] raw;
        FileUtils.get_data (path, out raw);
        /* the vocabulary: the printable ASCII characters, tabs and newlines
         * the text holds, in byte order, as the Python example orders it */
        var present = new bool[256];
        var kept = new uint8[raw.length];
        int n = 0;
        foreach (var b in raw) {
            if (b == '\n' || b == '\t' || (b >= ' ' && b <= '~')) {
                present[b] = true;
                kept[n++] = b;
            }
        }
        var vocab = new StringBuilder ();
        var index = new int[256];
        for (int b = 0; b < 256; b++) {
            if (present[b]) {
                index[b] = (int) vocab.len;
                vocab.append_c ((char) b);
            }
        }
        if (n < STEPS + 2 || !present['\n'])
            error ("%s is too short to train on", path);

        Dl.manual_seed (0);
        var rand = new Rand.with_seed (0);
        var model = new CharLstm (vocab.len, 64, hidden);
        var params = (GenericArray<Dl.Tensor>) model.parameters ();
        var adamw = new Dl.AdamW (params, 3e-3, 0.9, 0.999, 1e-8, 0.01, false);
        var x = new int64[BATCH * STEPS];
        var y = new int64[BATCH * STEPS];
        double first = 0, last = 0;
        int tenth = int.max (steps / 10, 1);
        var timer = new Timer ();
        for (int step = 0; step < steps; step++) {
            /* a batch of random windows; the targets are the next characters */
            for (int64 b = 0; b < BATCH; b++) {
                int start = rand.int_range (0, n - (int) STEPS - 1);
                for (int64 t = 0; t < STEPS; t++) {
                    x[b * STEPS + t] = index[kept[start + t]];
                    y[b * STEPS + t] = index[kept[start + t + 1]];
                }
            }
            var logits = model.forward (int64_tensor (x, { BATCH, STEPS }));
            var loss = Dl.cross_entropy (logits.reshape ({ -1, vocab.len }),
                                         int64_tensor (y, { BATCH * STEPS }));
            adamw.zero_grad (true);
            loss.backward ();
            Dl.clip_grad_norm_ (params.data, 1.0, 2.0, false);
            adamw.step ();
            var value = loss.item ();
            if (step < tenth)
                first += value / tenth;
            if (step >= steps - tenth)
                last += value / tenth;
            if (step % 50 == 0 || step == steps - 1)
                print ("step %d/%d: loss %.3f (%.1f s)\n", step + 1, steps, value, timer.elapsed ());
        }
        print ("mean loss: first tenth %.3f, last tenth %.3f (perplexity %.2f)\n", first, last,
               Math.exp (last));
        print ("sample:\n%s\n", sample (model, vocab.str, index, 200, 0.8));
        return last < 0.8 * first ? 0 : 1;
    } catch (GLib.Error e) {
        printerr ("char_lm: %s\n", e.message);
        return 1;
    }
}
