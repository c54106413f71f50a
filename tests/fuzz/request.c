/* gpuimg fuzz target: the server's wire format (src/app/proto.c), whose requests come from any
 * process that can reach the socket. The input is one message, read as a request and as a
 * reply. Checked: no crash, and a message that reads writes back to one that reads the same. */
#include <config.h>
#include <string.h>
#include "app/proto.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct proto_request q, q2;   /* large: kept off the stack */
    static struct proto_reply a, a2;
    static uint8_t buf[PROTO_MAX_MSG];
    const char *why;
    if (size > PROTO_MAX_MSG)
        return 0;
    /* what the wire does not carry starts equal (zero) in both, so only the wire is compared */
    memset(&q, 0, sizeof q);
    memset(&q2, 0, sizeof q2);
    if (proto_read_request(data, size, &q, &why) == 0) {
        const size_t n = proto_write_request(&q, buf);
        if (!n || proto_read_request(buf, n, &q2, &why) || memcmp(&q, &q2, sizeof q))
            fuzz_fail("a request that reads does not write back the same");
    } else if (!why)
        fuzz_fail("a refused request without a reason");
    if (proto_read_reply(data, size, &a, &why) == 0) {
        const size_t n = proto_write_reply(&a, buf);
        if (!n || proto_read_reply(buf, n, &a2, &why) || memcmp(&a, &a2, sizeof a))
            fuzz_fail("a reply that reads does not write back the same");
    } else if (!why)
        fuzz_fail("a refused reply without a reason");
    return 0;
}
