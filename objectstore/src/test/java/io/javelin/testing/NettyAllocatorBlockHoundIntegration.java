package io.javelin.testing;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Lets Netty's adaptive buffer allocator (the default since Netty 4.2, used by the Azure and GCS SDK
 * clients) take its magazine lock on an event-loop thread. {@code AdaptivePoolingAllocator$Magazine.free}
 * takes a {@code StampedLock} write lock that is held only for a few instructions; under heavy contention
 * it parks for a moment, which BlockHound reports as a blocking call and which failed 1 commit in ~200 in
 * the commit torture on Azure. It is Netty's own short critical section, never a wait on I/O or on our code.
 */
public final class NettyAllocatorBlockHoundIntegration implements BlockHoundIntegration {

    @Override
    public void applyTo(BlockHound.Builder builder) {
        builder.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free");
        builder.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines");
    }
}
