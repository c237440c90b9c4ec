// SPDX-License-Identifier: MIT
// The Guava side of the interop test: real com.google.common.hash.BloomFilter reading and
// writing the streams bloomline exports and imports (driven by run_guava_interop.sh).
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import com.google.common.hash.Hashing;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public final class GuavaInterop {
    private GuavaInterop() {}

    // Key files hold one key per line, hex-encoded (an empty line is the empty key), so any
    // byte string survives the trip between the two programs.
    static List<byte[]> readKeys(String path) throws IOException {
        List<byte[]> keys = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(path), StandardCharsets.US_ASCII)) {
            byte[] key = new byte[line.length() / 2];
            for (int i = 0; i < key.length; i++) {
                key[i] = (byte) Integer.parseInt(line.substring(2 * i, 2 * i + 2), 16);
            }
            keys.add(key);
        }
        return keys;
    }

    // One '0' or '1' per key, newline-terminated: the C side compares these files exactly.
    static int writeAnswers(BloomFilter<byte[]> filter, List<byte[]> keys, String path)
            throws IOException {
        StringBuilder sb = new StringBuilder(keys.size() + 1);
        int hits = 0;
        for (byte[] key : keys) {
            boolean hit = filter.mightContain(key);
            hits += hit ? 1 : 0;
            sb.append(hit ? '1' : '0');
        }
        sb.append('\n');
        Files.write(Paths.get(path), sb.toString().getBytes(StandardCharsets.US_ASCII));
        return hits;
    }

    static int checkAll(BloomFilter<byte[]> filter, List<byte[]> keys) {
        for (int i = 0; i < keys.size(); i++) {
            if (!filter.mightContain(keys.get(i))) {
                System.err.println("guava: false negative on positive key #" + i);
                return 1;
            }
        }
        return 0;
    }

    // murmur KEYS OUT: Hashing.murmur3_128() of every key, as the hex of its 16 bytes.
    static int murmur(String[] a) throws IOException {
        try (PrintWriter out = new PrintWriter(a[2], "US-ASCII")) {
            for (byte[] key : readKeys(a[1])) {
                out.println(Hashing.murmur3_128().hashBytes(key).toString());
            }
        }
        return 0;
    }

    // write KEYS N FPP OUT NEG ANSWERS: BloomFilter.create + put every key + writeTo.
    static int write(String[] a) throws IOException {
        List<byte[]> keys = readKeys(a[1]);
        BloomFilter<byte[]> filter = BloomFilter.create(Funnels.byteArrayFunnel(),
                Long.parseLong(a[2]), Double.parseDouble(a[3]));
        for (byte[] key : keys) {
            filter.put(key);
        }
        try (OutputStream out = new BufferedOutputStream(new FileOutputStream(a[4]))) {
            filter.writeTo(out);
        }
        int bad = checkAll(filter, keys);
        int fp = writeAnswers(filter, readKeys(a[5]), a[6]);
        System.out.println("guava write: " + keys.size() + " keys, false positives on negatives: "
                + fp + ", expectedFpp " + filter.expectedFpp());
        return bad;
    }

    // read STREAM KEYS NEG ANSWERS: BloomFilter.readFrom a bloomline export, check every key.
    static int read(String[] a) throws IOException {
        BloomFilter<byte[]> filter;
        try (InputStream in = new BufferedInputStream(new FileInputStream(a[1]))) {
            filter = BloomFilter.readFrom(in, Funnels.byteArrayFunnel());
        }
        List<byte[]> keys = readKeys(a[2]);
        int bad = checkAll(filter, keys);
        int fp = writeAnswers(filter, readKeys(a[3]), a[4]);
        System.out.println("guava read: all " + keys.size() + " keys "
                + (bad == 0 ? "present" : "NOT present") + ", false positives on negatives: "
                + fp + ", expectedFpp " + filter.expectedFpp());
        return bad;
    }

    // reject STREAM: what readFrom says about a stream with an unknown strategy (must throw).
    static int unknownStrategy(String[] a) throws IOException {
        byte[] stream = Files.readAllBytes(Paths.get(a[1]));
        try {
            BloomFilter.readFrom(new java.io.ByteArrayInputStream(stream), Funnels.byteArrayFunnel());
        } catch (IOException e) {
            System.out.println("guava rejects it too: " + e.getMessage());
            return 0;
        }
        System.err.println("guava accepted a stream it should reject");
        return 1;
    }

    public static void main(String[] args) throws IOException {
        String mode = args.length > 0 ? args[0] : "";
        int rc;
        switch (mode) {
            case "murmur": rc = murmur(args); break;
            case "write": rc = write(args); break;
            case "read": rc = read(args); break;
            case "reject": rc = unknownStrategy(args); break;
            default:
                System.err.println("usage: GuavaInterop murmur|write|read|reject ...");
                rc = 2;
        }
        System.exit(rc);
    }
}
