/**
 * CRC16-XMODEM (polynomial 0x1021, initial 0, no reflection): the checksum of Stellar's StrKey
 * and of TON's user-friendly addresses.
 */
export function crc16Xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
