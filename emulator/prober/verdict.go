package prober

import "io"

// A verdict judges the answer of a probed server from the bytes it sends,
// fed in whatever pieces the network delivers them. The same verdicts run
// under both drivers: readVerdict over a connection (TLS protocols, and every
// protocol off Linux) and the epoll reactor (plain TCP and HTTP on Linux),
// so a rule about an answer lives in one place whatever reads the bytes.
type verdict interface {
	// feed takes the next bytes received. done reports that the verdict is
	// known: healthy when err is nil.
	feed(p []byte) (done bool, err error)
	// eof is the verdict when the server closes before feed was done.
	eof() error
	// abort is the verdict when reading failed with err (timeout, reset)
	// before feed was done: the bytes already seen may say more than err.
	abort(err error) error
}

// readBufSize is how much one read asks for: a status line and the usual
// headers of a health endpoint fit in one read.
const readBufSize = 4096

// readVerdict reads r until v has its verdict.
func readVerdict(r io.Reader, buf []byte, v verdict) error {
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if done, verr := v.feed(buf[:n]); done {
				return verr
			}
		}
		switch {
		case err == io.EOF:
			return v.eof()
		case err != nil:
			return v.abort(err)
		}
	}
}
