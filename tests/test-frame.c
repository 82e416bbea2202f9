#include "config.h"
#include <criterion/criterion.h>
#include "frame.h"
#include "err.h"
#include "helpers.h"
#include <sys/socket.h>
Test(frame, smoke) {
	int sv[2]; struct frame_rx rx;
	th_pair(SOCK_STREAM, sv);
	cr_assert_eq(frame_send(sv[0], "abc", 3, NULL, 0), 0);
	frame_rx_init(&rx, NULL, 0, 0);
	cr_assert_eq(frame_recv(sv[1], &rx, 1000), 0);
	cr_assert_eq(rx.len, 3);
	frame_rx_reset(&rx);
}
