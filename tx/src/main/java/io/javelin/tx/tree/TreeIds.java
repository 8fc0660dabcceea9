package io.javelin.tx.tree;

import java.nio.ByteBuffer;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.UUID;

/**
 * Random (version 4) UUIDs for new tree objects without blocking: {@link UUID#randomUUID()} may
 * read {@code /dev/urandom} on every call, which is forbidden on Reactor's non-blocking threads.
 * A DRBG seeded once when this class is initialized (from {@link TreeWriter}'s constructor) then
 * generates in memory.
 */
final class TreeIds {

    private static final SecureRandom RNG = create();

    private TreeIds() {
    }

    private static SecureRandom create() {
        SecureRandom rng;
        try {
            rng = SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            rng = new SecureRandom();
        }
        rng.nextBytes(new byte[16]);
        return rng;
    }

    /** Forces seeding on the calling thread. */
    static void init() {
        // Class initialization does the work.
    }

    static UUID random() {
        byte[] b = new byte[16];
        RNG.nextBytes(b);
        b[6] = (byte) ((b[6] & 0x0f) | 0x40);
        b[8] = (byte) ((b[8] & 0x3f) | 0x80);
        ByteBuffer buf = ByteBuffer.wrap(b);
        return new UUID(buf.getLong(), buf.getLong());
    }
}
