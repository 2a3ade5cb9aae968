/** A ProcessDocument SOAP envelope carrying a CDA document of about `bytes` bytes, base64 encoded. */
import { readFileSync } from 'node:fs';

export function envelopeOf(bytes: number): string {
  const sample = readFileSync(new URL('../../test/fixtures/cda/uclh_cda.xml', import.meta.url), 'utf8');
  const head = sample.slice(0, sample.lastIndexOf('</ClinicalDocument>'));
  let filler = '';
  while (head.length + filler.length < bytes) filler += '<!-- padding to reach the benchmark size ------------------------------------- -->\n';
  const cda = `${head}${filler}</ClinicalDocument>`;
  return `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:epic-com:Common.2013.Services">
<soapenv:Header/><soapenv:Body><urn:ProcessDocument><urn:SessionID>bench</urn:SessionID><urn:WorkType>2</urn:WorkType>
<urn:OrganizationID>Bench</urn:OrganizationID><urn:Document>${Buffer.from(cda).toString('base64')}</urn:Document>
</urn:ProcessDocument></soapenv:Body></soapenv:Envelope>`;
}
