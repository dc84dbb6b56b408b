// Expected: AC. A hand-rolled reader over a 64 KiB buffer.
import java.io.DataInputStream;
import java.io.IOException;

public class Main {
    private static final DataInputStream in = new DataInputStream(System.in);
    private static final byte[] buf = new byte[1 << 16];
    private static int len = 0, pos = 0;

    private static int read() throws IOException {
        if (pos == len) {
            len = in.read(buf, 0, buf.length);
            pos = 0;
            if (len <= 0) return -1;
        }
        return buf[pos++];
    }

    private static long nextLong() throws IOException {
        int c = read();
        while (c == ' ' || c == '\n' || c == '\r') c = read();
        boolean neg = c == '-';
        if (neg) c = read();
        long v = 0;
        for (; c >= '0' && c <= '9'; c = read()) v = v * 10 + (c - '0');
        return neg ? -v : v;
    }

    public static void main(String[] args) throws IOException {
        long n = nextLong(), sum = 0;
        for (long i = 0; i < n; i++) sum += nextLong();
        System.out.println(sum);
    }
}
