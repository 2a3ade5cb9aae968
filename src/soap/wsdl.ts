/**
 * The WSDL 1.1 description of a NoteReader service, built by code.
 * @module
 */
import { escapeXML } from './escape-xml.js';

/** What the WSDL describes. */
export interface WSDLDescription {
  /** The target namespace (`urn:epic-com:Common.2013.Services`). */
  namespace: string;
  /** The `wsdl:service` name (`CDSServices`). */
  serviceName: string;
  /** The `portType`, `binding` and `port` name (`ICDSServices`). */
  portName: string;
  /** The operations (`ProcessDocument`); each has the same request and result shapes. */
  operations: readonly string[];
  /** The URL written in `soap:address`. */
  address: string;
}

const FAULTS = ['ClientFault', 'ServerFault'] as const;

function schema(operations: readonly string[], namespace: string): string {
  const ops = operations
    .map(
      (op) =>
        `<xs:element name="${op}"><xs:complexType><xs:sequence>` +
        '<xs:element name="SessionID" type="xs:string" minOccurs="0" nillable="true"/>' +
        '<xs:element name="WorkType" type="xs:string" minOccurs="0" nillable="true"/>' +
        '<xs:element name="OrganizationID" type="xs:string" minOccurs="0" nillable="true"/>' +
        '<xs:element name="Document" type="xs:base64Binary" minOccurs="0" nillable="true"/>' +
        '</xs:sequence></xs:complexType></xs:element>' +
        `<xs:element name="${op}Response"><xs:complexType><xs:sequence>` +
        `<xs:element name="${op}Result" type="tns:DocumentResponse" minOccurs="0" nillable="true"/>` +
        '</xs:sequence></xs:complexType></xs:element>',
    )
    .join('');
  const faults = FAULTS.map(
    (f) =>
      `<xs:element name="${f}"><xs:complexType><xs:sequence>` +
      '<xs:element name="Type" type="xs:string" minOccurs="0" nillable="true"/></xs:sequence></xs:complexType></xs:element>',
  ).join('');
  return (
    `<wsdl:types><xs:schema targetNamespace="${escapeXML(namespace)}" elementFormDefault="qualified">` +
    '<xs:complexType name="DocumentResponse"><xs:sequence>' +
    '<xs:element name="Document" type="xs:base64Binary" minOccurs="0" nillable="true"/>' +
    '<xs:element name="Error" type="xs:string" minOccurs="0" nillable="true"/>' +
    `</xs:sequence></xs:complexType>${ops}${faults}</xs:schema></wsdl:types>`
  );
}

function messages(operations: readonly string[]): string {
  const names = [...operations.flatMap((op) => [op, `${op}Response`]), ...FAULTS];
  return names.map((n) => `<wsdl:message name="${n}"><wsdl:part name="${n}" element="tns:${n}"/></wsdl:message>`).join('');
}

function portType(d: WSDLDescription): string {
  const ops = d.operations.map(
    (op) =>
      `<wsdl:operation name="${op}"><wsdl:input name="${op}" message="tns:${op}"/>` +
      `<wsdl:output name="${op}Response" message="tns:${op}Response"/>` +
      FAULTS.map((f) => `<wsdl:fault name="${f}" message="tns:${f}"/>`).join('') +
      '</wsdl:operation>',
  );
  return `<wsdl:portType name="${d.portName}">${ops.join('')}</wsdl:portType>`;
}

function binding(d: WSDLDescription): string {
  const ops = d.operations.map(
    (op) =>
      `<wsdl:operation name="${op}"><soap:operation soapAction="${op}" style="document"/>` +
      `<wsdl:input name="${op}"><soap:body use="literal"/></wsdl:input>` +
      `<wsdl:output name="${op}Response"><soap:body use="literal"/></wsdl:output>` +
      FAULTS.map((f) => `<wsdl:fault name="${f}"><soap:fault name="${f}" use="literal"/></wsdl:fault>`).join('') +
      '</wsdl:operation>',
  );
  return (
    `<wsdl:binding name="${d.portName}" type="tns:${d.portName}">` +
    '<soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>' +
    `${ops.join('')}</wsdl:binding>`
  );
}

/**
 * Builds the WSDL 1.1 document (document/literal over SOAP 1.1 HTTP) of a NoteReader service: the
 * schema of each operation's request and `DocumentResponse` result and of the `ClientFault` and
 * `ServerFault` details, the messages, the port type, the binding (`soapAction` = the operation name)
 * and the service with its `soap:address`.
 */
export function buildWSDL(d: WSDLDescription): string {
  const ns = escapeXML(d.namespace);
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"' +
    ` xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="${ns}" targetNamespace="${ns}" name="${d.serviceName}">` +
    schema(d.operations, d.namespace) +
    messages(d.operations) +
    portType(d) +
    binding(d) +
    `<wsdl:service name="${d.serviceName}"><wsdl:port name="${d.portName}" binding="tns:${d.portName}">` +
    `<soap:address location="${escapeXML(d.address)}"/></wsdl:port></wsdl:service></wsdl:definitions>`
  );
}
